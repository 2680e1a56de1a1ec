/**
 * What one user write (./ports.ts `UserWritePlan`, one DynamoDB transaction) may commit besides
 * users: the items of other features that must change with a user or not at all — a one-time
 * token consumed and emails verified (functions/domain/accounts/), a passkey registered or removed
 * (functions/domain/webauthn/). Their data is stated here, below those features, so that the users
 * feature names them without importing the features that use it.
 */

// Accounts (docs/password-reset-and-verification.md)

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

// Passkeys (docs/passkeys.md "What is stored")

/** A passkey of a webauthn login method. */
export interface StoredCredential {
  /** The credential id as the browser sends it (base64url). */
  readonly id: string;
  /** The webauthn login method (recipe user id, never an external id) it belongs to. */
  readonly recipeUserId: string;
  /** The relying party it was registered for. */
  readonly relyingPartyId: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  /** The authenticator's signature counter as last seen (0 for authenticators that keep none). */
  readonly counter: number;
  readonly transports: readonly string[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Passkey writes that commit in the same transaction as a user write, stated as intent. */
export interface WebauthnWrites {
  /** Stored, on condition that no passkey of the app has its id (else the write fails: `webauthnCredential`). */
  readonly register?: StoredCredential;
  /** Deleted, on condition that it still belongs to this login method (else: `webauthnCredential`). */
  readonly remove?: { readonly credentialId: string; readonly recipeUserId: string };
}
