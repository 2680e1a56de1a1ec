/**
 * Wiring of the WebAuthn (passkeys) use cases for the app and tenant of a request: the app's
 * users, options and passkeys (bound to the app), its one-time tokens (account recovery), the system's secure
 * randomness and the tenant's recovery-token lifetime (docs/passkeys.md).
 */
import { randomBytes } from 'node:crypto';
import type { EffectiveConfig } from '#functions/config/index.js';
import type { WebauthnDeps } from '#functions/domain/webauthn/deps.js';
import { accountTokenStoreOf, webauthnStoreOf } from './stores.js';
import { appTable } from './tables.js';
import { usersDeps } from './users.js';

/** The reference's default `webauthn_recover_account_token_lifetime`: one hour. */
const RECOVER_TOKEN_LIFETIME_MS = 3_600_000;

export function webauthnDeps(config: EffectiveConfig, appId: string): WebauthnDeps {
  const lifetime = config.values.webauthn_recover_account_token_lifetime;
  const table = appTable(config);
  return {
    appId,
    users: usersDeps(config),
    store: webauthnStoreOf(table).forApp(appId),
    tokens: accountTokenStoreOf(table).forApp(appId),
    randomBytes: (size) => randomBytes(size),
    recoverTokenLifetimeMs: typeof lifetime === 'number' && lifetime > 0 ? lifetime : RECOVER_TOKEN_LIFETIME_MS,
  };
}
