/**
 * What the WebAuthn use cases are given (docs/passkeys.md), for one app: its users, its options and
 * passkeys, its one-time tokens (account recovery), the clock, new ids and the system's secure
 * randomness, and the tenant's recovery-token lifetime.
 */
import type { AccountTokenStore } from '../accounts/ports.js';
import type { UsersDeps } from '../users/deps.js';
import type { WebauthnStore } from './ports.js';

export interface WebauthnDeps {
  /**
   * The app these dependencies serve: `store` and `tokens` are bound to it already; the users
   * store is not yet (docs/architecture.md "Stores bound to their app"), and is given this id,
   * never one from a caller.
   */
  readonly appId: string;
  readonly users: UsersDeps;
  readonly store: WebauthnStore;
  readonly tokens: AccountTokenStore;
  readonly randomBytes: (size: number) => Uint8Array;
  /** `webauthn_recover_account_token_lifetime` (ms) of the request's tenant. */
  readonly recoverTokenLifetimeMs: number;
}

/** Options ids are the core's UUIDs: a longer one names no options and is not looked up. */
const MAX_OPTIONS_ID_LENGTH = 128;

export const isOptionsIdShape = (id: string) => id.length > 0 && id.length <= MAX_OPTIONS_ID_LENGTH;
