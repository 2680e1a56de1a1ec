import { type HashPasswordParams, hashPassword } from './hash.js';
import { HASH_COST_ABOVE_LIMIT, UNSUPPORTED_HASH, type VerifyResult, WRONG_PASSWORD } from './result.js';
import type { VerifyPasswordOptions } from './scheme.js';
import { schemeOf } from './schemes.js';

export type { VerifyPasswordOptions };

/**
 * Checks a password against a stored hash, inferring the scheme from the hash itself (the
 * prefixes in schemes.ts): bcrypt, Argon2 and Firebase scrypt as the reference does, and this
 * core's canonical forms of the legacy families. Anything else is a wrong password.
 *
 * A hash whose parameters are beyond HASH_LIMITS answers `HASH_COST_ABOVE_LIMIT` and one the KDF
 * cannot compute `UNSUPPORTED_HASH`, both without running the KDF. Digests are compared in
 * constant time. Throws PasswordHashingError only for internal failures; its message never
 * contains the password or the hash.
 */
export async function verifyPassword(
  plain: string,
  storedHash: string,
  options: VerifyPasswordOptions,
): Promise<VerifyResult> {
  const opened = schemeOf(storedHash)?.open(storedHash);
  if (!opened) return WRONG_PASSWORD;
  if (opened.problem) return opened.problem.kind === 'limit' ? HASH_COST_ABOVE_LIMIT : UNSUPPORTED_HASH;
  return opened.verify(plain, options);
}

/**
 * Whether a stored hash is of a legacy family (PBKDF2, scrypt, phpass, the digests, LDAP), which
 * sign-in should replace with the app's algorithm once the password is known to be right.
 * False for bcrypt, Argon2, Firebase scrypt (kept as the reference keeps them) and for strings
 * that are not a stored hash at all.
 */
export function needsRehash(storedHash: string): boolean {
  return schemeOf(storedHash)?.legacy ?? false;
}

/**
 * The verify of a sign-in whose email is unknown: spends what a verify against a hash of the
 * app's algorithm at its configured cost spends (it computes exactly such a hash of the given
 * password and throws it away), so the response time does not tell which emails exist. Always
 * a wrong password.
 */
export async function dummyVerifyPassword(plain: string, params: HashPasswordParams): Promise<VerifyResult> {
  // Argon2 refuses the empty password; the work does not depend on the password.
  await hashPassword(plain === '' ? ' ' : plain, params);
  return WRONG_PASSWORD;
}
