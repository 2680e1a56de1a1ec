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

export interface AccountTokenStore {
  /** Stores a token (its owner-side item first, then its lookup item). */
  putToken(appId: string, token: OneTimeToken): Promise<void>;
  /** The token with this hash, consistent read; undefined when there is none. */
  getToken(appId: string, kind: OneTimeTokenKind, hash: string): Promise<OneTimeToken | undefined>;
  /** Every token of a group still stored (consistent Query of the owner's partition). */
  tokensOf(appId: string, group: TokenGroup): Promise<OneTimeToken[]>;
  /** Deletes these tokens (batched; not atomic). */
  removeTokens(appId: string, tokens: readonly OneTimeToken[]): Promise<void>;
  /** Whether the verified-email item of (owner id, email) exists (consistent read). */
  isVerifiedEmail(appId: string, ref: VerifiedEmailRef): Promise<boolean>;
}
