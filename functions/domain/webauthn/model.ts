/**
 * What the WebAuthn (passkeys) recipe keeps (docs/passkeys.md "What is stored"): the options a
 * registration or sign-in ceremony was started with, and the passkeys registered to webauthn login
 * methods. Pure data.
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
