import { argon2Form } from './argon2.js';
import { verifyArgon2 } from './argon2-kdf.js';
import { bcryptForm } from './bcrypt.js';
import { verifyBcrypt } from './bcrypt-kdf.js';
import { digestForm, verifyDigest } from './digest.js';
import { firebaseScryptForm, verifyFirebaseScrypt } from './firebase-scrypt.js';
import { pbkdf2Form, verifyPbkdf2 } from './pbkdf2.js';
import { portableForm, verifyPortable, wordPressForm } from './phpass.js';
import { defineScheme, type StoredScheme } from './scheme.js';
import { scryptForm, verifyScrypt } from './scrypt.js';
import { verifyWordPress } from './wordpress-kdf.js';

/**
 * Every stored form of forms.ts (in its order, which decides nothing: no two forms claim the same
 * string) with its verification: what sign-in runs. The KDFs are imported here and by hash.ts
 * only, so code that only checks imported hashes never loads them.
 */
export const STORED_SCHEMES: readonly StoredScheme[] = [
  defineScheme(argon2Form, verifyArgon2),
  defineScheme(bcryptForm, verifyBcrypt),
  defineScheme(firebaseScryptForm, verifyFirebaseScrypt),
  defineScheme(pbkdf2Form, verifyPbkdf2),
  defineScheme(scryptForm, verifyScrypt),
  defineScheme(portableForm, verifyPortable),
  defineScheme(wordPressForm, verifyWordPress),
  defineScheme(digestForm, verifyDigest),
];

export function schemeOf(stored: string): StoredScheme | undefined {
  return STORED_SCHEMES.find((scheme) => scheme.claims(stored));
}
