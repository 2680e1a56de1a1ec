/**
 * What the password-reset and email-verification use cases need from storage: one-time tokens
 * (kept as hashes only) and the verified state of emails that are not a login method's own
 * (docs/password-reset-and-verification.md). Writes that must commit with a user change go
 * through the users store as companion writes ({@link AccountWrites}).
 */
export type OneTimeTokenKind = 'passwordReset' | 'emailVerification' | 'webauthnRecovery';

/** A password-reset or email-verification token as stored: never the token, only its hash. */
export interface OneTimeToken {
  readonly kind: OneTimeTokenKind;
  /** SHA-256 of the token (hex). */
  readonly hash: string;
  /**
   * Whose token: the SuperTokens id the caller's id names (a user id or recipe user id), or, for
   * email verification of an id that is no user's, that id as given.
   */
  readonly ownerId: string;
  /** The user id as the caller gave it when the token was created. */
  readonly userId: string;
  readonly email: string;
  /**
   * Email-verification and WebAuthn account-recovery tokens belong to a tenant; password-reset
   * tokens to the whole app.
   */
  readonly tenantId?: string;
  /** Epoch milliseconds; the token is refused after it. */
  readonly expiresAt: number;
}

/** The tokens one consumption (or revocation) removes together. */
export type TokenGroup =
  | { readonly kind: 'passwordReset'; readonly ownerId: string }
  | {
      readonly kind: 'emailVerification' | 'webauthnRecovery';
      readonly ownerId: string;
      readonly tenantId: string;
      readonly email: string;
    };

/** A verified (owner id, email) pair kept apart from the login methods. */
export interface VerifiedEmailRef {
  readonly ownerId: string;
  readonly email: string;
}

/**
 * Account writes that commit in the same transaction as a user write (or alone, with no user
 * change), stated as intent; the users store composes the items.
 */
export interface AccountWrites {
  /** Consumed: deleted on condition that it still exists; otherwise the write fails (`oneTimeToken`). */
  readonly consume?: OneTimeToken;
  /** Deleted with it, whether they still exist or not. */
  readonly discard?: readonly OneTimeToken[];
  /** Verified-email items written. */
  readonly verify?: readonly VerifiedEmailRef[];
  /**
   * Verified-email items deleted; with `mustExist`, the write fails (`verifiedEmail`) when the
   * item is already gone.
   */
  readonly unverify?: readonly (VerifiedEmailRef & { readonly mustExist?: boolean })[];
  /** Verified-email items that must not exist when the write commits (else it fails: `verifiedEmail`). */
  readonly expectUnverified?: readonly VerifiedEmailRef[];
  /**
   * The user the write was decided on must still be at this version (else it fails: `user`), for
   * writes that change no user.
   */
  readonly userUnchanged?: { readonly userId: string; readonly version: number };
}

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
