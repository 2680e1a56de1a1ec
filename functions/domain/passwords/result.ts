import { timingSafeEqual } from 'node:crypto';

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
 *   (Argon2 version other than 0x13, parameters the KDF refuses). Nothing was checked; callers
 *   answer wrong credentials but should log it.
 * - `HASH_COST_ABOVE_LIMIT` – the hash asks for more work than `HASH_LIMITS` (limits.ts) allow (it was
 *   stored before the bounds existed). The KDF was not run; callers answer wrong credentials and
 *   log a warning (without the hash).
 */
export type VerifyResult = { readonly ok: true } | { readonly ok: false; readonly reason: VerifyFailureReason };

type VerifyFailureReason =
  | 'WRONG_PASSWORD'
  | 'MISSING_FIREBASE_SIGNER_KEY'
  | 'UNSUPPORTED_HASH'
  | 'HASH_COST_ABOVE_LIMIT';

const MATCH: VerifyResult = Object.freeze({ ok: true });
export const WRONG_PASSWORD: VerifyResult = Object.freeze({ ok: false, reason: 'WRONG_PASSWORD' });
export const MISSING_FIREBASE_SIGNER_KEY: VerifyResult = Object.freeze({
  ok: false,
  reason: 'MISSING_FIREBASE_SIGNER_KEY',
});
export const UNSUPPORTED_HASH: VerifyResult = Object.freeze({ ok: false, reason: 'UNSUPPORTED_HASH' });
export const HASH_COST_ABOVE_LIMIT: VerifyResult = Object.freeze({ ok: false, reason: 'HASH_COST_ABOVE_LIMIT' });

function fromMatch(matches: boolean): VerifyResult {
  return matches ? MATCH : WRONG_PASSWORD;
}

/**
 * Compares a computed digest with the stored one in constant time. Lengths are not secret (the
 * stored format fixes them), so a length mismatch returns at once.
 */
export function compareDigests(computed: Uint8Array, expected: Uint8Array): VerifyResult {
  return fromMatch(computed.length === expected.length && timingSafeEqual(computed, expected));
}
