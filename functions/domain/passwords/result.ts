/**
 * Outcome of checking a password against a stored hash.
 *
 * - `{ ok: true }` – the password matches.
 * - `WRONG_PASSWORD` – it does not match, or the stored hash is not in any shape this core can
 *   check (the reference answers both with wrong credentials).
 * - `MISSING_FIREBASE_SIGNER_KEY` – the stored hash is a Firebase scrypt hash but the app has no
 *   `firebase_password_hashing_signer_key`; nothing was checked. This is a configuration problem
 *   and must not be reported to the user as wrong credentials.
 * - `UNSUPPORTED_HASH` – the hash is well-formed but uses something this core cannot compute
 *   (Argon2 version other than 0x13, cost parameters beyond the memory limit or invalid for the
 *   KDF). Nothing was checked; callers answer wrong credentials but should log it.
 */
export type VerifyResult = { readonly ok: true } | { readonly ok: false; readonly reason: VerifyFailureReason };

export type VerifyFailureReason = 'WRONG_PASSWORD' | 'MISSING_FIREBASE_SIGNER_KEY' | 'UNSUPPORTED_HASH';

export const MATCH: VerifyResult = Object.freeze({ ok: true });
export const WRONG_PASSWORD: VerifyResult = Object.freeze({ ok: false, reason: 'WRONG_PASSWORD' });
export const MISSING_FIREBASE_SIGNER_KEY: VerifyResult = Object.freeze({
  ok: false,
  reason: 'MISSING_FIREBASE_SIGNER_KEY',
});
export const UNSUPPORTED_HASH: VerifyResult = Object.freeze({ ok: false, reason: 'UNSUPPORTED_HASH' });

export function fromMatch(matches: boolean): VerifyResult {
  return matches ? MATCH : WRONG_PASSWORD;
}

/**
 * Upper bound on the memory a stored hash may ask a KDF for (Argon2 `m`, scrypt `128·N·r`).
 * Generous compared with real-world parameters (Firebase: 16 MiB, this core's Argon2 default:
 * ~86 MiB, libsodium's "sensitive" preset: 1 GiB) but keeps a hostile hash from exhausting the
 * function's memory.
 */
export const MAX_KDF_MEMORY_BYTES = 1024 * 1024 * 1024;
