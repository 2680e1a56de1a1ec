/**
 * Credential ids as the core keeps and looks them up (docs/passkeys.md "What is stored"): base64url
 * without padding, at most 1,023 bytes (the WebAuthn limit). With the users because a user is
 * looked up by its passkey's id (./lookup.ts) as by its email; the passkey verifier
 * (functions/domain/webauthn/verify.ts) takes them from here, and the routes which only look
 * passkeys up do not carry it.
 */

/** The longest credential id accepted: 1,023 bytes, base64url. */
const MAX_CREDENTIAL_ID_LENGTH = 1364;
export const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** A credential id as the core keeps it: base64url without padding. */
export const canonicalCredentialId = (id: string) => id.replace(/=+$/, '');

/** Whether a credential id could be one (base64url, within the length limit): only those are looked up. */
export const isCredentialIdShape = (id: string) =>
  id.length > 0 && id.length <= MAX_CREDENTIAL_ID_LENGTH && BASE64URL.test(id);
