/**
 * Wiring of account linking: the users store (through `usersDeps`) and the app's switch. This core
 * has no licence; `account_linking_enabled` (or `mfa_enabled`, which needs linking, as the
 * reference's MFA feature does) is the app's permission to link.
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { LinkingTarget } from '#functions/domain/accountlinking/service.js';

export function linkingTarget(appId: string, config: EffectiveConfig): LinkingTarget {
  return { appId, linkingEnabled: config.accountLinkingEnabled || config.mfaEnabled };
}
