/**
 * Wiring of account linking: the users store, the app's sessions (a link or an unlink ends the
 * recipe user's sessions) and the app's switch. This core has no licence; `account_linking_enabled`
 * (or `mfa_enabled`, which needs linking, as the reference's MFA feature does) is the app's
 * permission to link. The session store is built here, not taken from wiring/sessions.ts, which
 * also carries the signing keys (and their KMS client) that these functions never use.
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { LinkingDeps, LinkingTarget } from '#functions/domain/accountlinking/service.js';
import type { SessionStore } from '#functions/domain/sessions/ports.js';
import type { Table } from '#functions/storage/kit/index.js';
import { createSessionStore } from '#functions/storage/sessions/session-store.js';
import { appTable } from './tables.js';
import { usersDeps } from './users.js';

const sessionStores = new Map<string, SessionStore>();
const sessionStoreOf = (table: Table): SessionStore => {
  let store = sessionStores.get(table.name);
  if (!store) {
    store = createSessionStore(table);
    sessionStores.set(table.name, store);
  }
  return store;
};

export function linkingDeps(config: EffectiveConfig): LinkingDeps {
  return { ...usersDeps(config), sessions: sessionStoreOf(appTable(config)) };
}

export function linkingTarget(appId: string, config: EffectiveConfig): LinkingTarget {
  return { appId, linkingEnabled: config.accountLinkingEnabled || config.mfaEnabled };
}
