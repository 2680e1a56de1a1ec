/**
 * What the password-reset and email-verification use cases need from storage: one-time tokens
 * (kept as hashes only) and the verified state of emails that are not a login method's own
 * (docs/password-reset-and-verification.md). Writes that must commit with a user change go
 * through the users store as companion writes (`AccountWrites`, functions/domain/users/companions.ts,
 * with the token and verified-email data).
 */
import type { OneTimeToken, OneTimeTokenKind, VerifiedEmailRef } from '../users/companions.js';

/** The tokens one consumption (or revocation) removes together. */
export type TokenGroup =
  | { readonly kind: 'passwordReset'; readonly ownerId: string }
  | {
      readonly kind: 'emailVerification' | 'webauthnRecovery';
      readonly ownerId: string;
      readonly tenantId: string;
      readonly email: string;
    };

/** The one-time tokens and verified emails of one app. */
export interface AccountTokenStore {
  /** Stores a token (its owner-side item first, then its lookup item). */
  storeOneTimeToken(token: OneTimeToken): Promise<void>;
  /** The token with this hash, consistent read; undefined when there is none. */
  readOneTimeToken(kind: OneTimeTokenKind, hash: string): Promise<OneTimeToken | undefined>;
  /** Every token of a group still stored (consistent Query of the owner's partition). */
  oneTimeTokensOf(group: TokenGroup): Promise<OneTimeToken[]>;
  /** Deletes these tokens (batched; not atomic). */
  removeOneTimeTokens(tokens: readonly OneTimeToken[]): Promise<void>;
  /** Whether the verified-email item of (owner id, email) exists (consistent read). */
  isVerifiedEmail(ref: VerifiedEmailRef): Promise<boolean>;
}

/** The tokens and verified emails of every app of a table; wiring binds it to the request's app (docs/architecture.md "Stores bound to their app"). */
export interface AccountTokenStores {
  forApp(appId: string): AccountTokenStore;
}
