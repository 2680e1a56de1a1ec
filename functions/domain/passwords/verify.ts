import { verifyArgon2 } from './argon2.js';
import { verifyBcrypt } from './bcrypt.js';
import { verifyFirebaseScrypt } from './firebase-scrypt.js';
import { hasArgon2Prefix, hasBcryptPrefix, parseFirebaseScryptHash } from './format.js';
import { MISSING_FIREBASE_SIGNER_KEY, type VerifyResult, WRONG_PASSWORD } from './result.js';

export interface VerifyPasswordOptions {
  /** The app's `firebase_password_hashing_signer_key` (Base64), if configured. */
  readonly firebaseSignerKey: string | undefined;
}

/**
 * Checks a password against a stored hash, inferring the algorithm from the hash itself as the
 * reference does at sign-in: `$argon2id`/`$argon2i`/`$argon2d` → Argon2, `$2a`/`$2b`/`$2x`/`$2y`
 * → bcrypt, `$f_scrypt$…` → Firebase scrypt (needs the signer key), anything else → wrong password.
 * Throws PasswordHashingError only for internal failures; its message never contains the
 * password or the hash.
 */
export async function verifyPassword(
  plain: string,
  storedHash: string,
  options: VerifyPasswordOptions,
): Promise<VerifyResult> {
  if (hasArgon2Prefix(storedHash)) return verifyArgon2(plain, storedHash);
  if (hasBcryptPrefix(storedHash)) return verifyBcrypt(plain, storedHash);
  const firebase = parseFirebaseScryptHash(storedHash);
  if (firebase) {
    const signerKey = options.firebaseSignerKey?.trim();
    if (!signerKey) return MISSING_FIREBASE_SIGNER_KEY;
    return verifyFirebaseScrypt(plain, firebase, signerKey);
  }
  return WRONG_PASSWORD;
}
