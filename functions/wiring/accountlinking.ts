/**
 * Wiring of account linking: the users store, the app's sessions (a link or an unlink ends the
 * recipe user's sessions) and the app's switch. This core has no licence; `account_linking_enabled`
 * (or `mfa_enabled`, which needs linking, as the reference's MFA feature does) is the app's
 * permission to link. The session store comes from wiring/stores.ts, not wiring/sessions.ts, which
 * also carries the signing keys (and their KMS client) that these functions never use.
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { LinkingDeps, LinkingTarget } from '#functions/domain/accountlinking/service.js';
import { sessionStoreOf } from './stores.js';
import { appTable } from './tables.js';
import { usersDeps } from './users.js';

export function linkingDeps(config: EffectiveConfig): LinkingDeps {
  return { ...usersDeps(config), sessions: sessionStoreOf(appTable(config)) };
}

export function linkingTarget(appId: string, config: EffectiveConfig): LinkingTarget {
  return { appId, linkingEnabled: config.accountLinkingEnabled || config.mfaEnabled };
}
