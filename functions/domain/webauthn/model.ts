/**
 * What the WebAuthn (passkeys) recipe keeps (docs/passkeys.md "What is stored"): the options a
 * registration or sign-in ceremony was started with, and the passkeys registered to webauthn login
 * methods (`StoredCredential`, with the users' data in functions/domain/users/companions.ts: a
 * registration commits with its user). Pure data.
 */

/** The options of one ceremony, as stored between the options request and its use. */
export interface GeneratedOptions {
  readonly id: string;
  /** The tenant of the options request (GET and DELETE of the options look only there). */
  readonly tenantId: string;
  /** 32 random bytes, base64url without padding, as sent to the browser. */
  readonly challenge: string;
  /** Registration options only: the (normalised) email the new passkey is for. */
  readonly email?: string;
  readonly relyingPartyId: string;
  readonly relyingPartyName: string;
  /** The origin the browser must report (an https origin, or an Android app's key hash). */
  readonly origin: string;
  readonly userVerification: UserVerification;
  /** Whether the authenticator must report the user present. */
  readonly userPresence: boolean;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** `createdAt + timeout`: the options are refused after it (`Options expired`). */
  readonly expiresAt: number;
}

export type UserVerification = 'required' | 'preferred' | 'discouraged';
