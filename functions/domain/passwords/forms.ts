import { argon2Form } from './argon2.js';
import { bcryptForm } from './bcrypt.js';
import { digestForm } from './digest.js';
import { firebaseScryptForm } from './firebase-scrypt.js';
import { pbkdf2Form } from './pbkdf2.js';
import { portableForm, wordPressForm } from './phpass.js';
import type { StoredForm } from './scheme.js';
import { scryptForm } from './scrypt.js';

/**
 * Every stored form, each claiming its strings by a prefix no other one shares. What the import
 * checks read (format.ts), without any KDF; sign-in pairs each with its verification, in the same
 * order (schemes.ts).
 *
 * | stored prefix | form | from `hashingAlgorithm` |
 * | --- | --- | --- |
 * | `$2a$` `$2b$` `$2x$` `$2y$` | bcrypt | BCRYPT |
 * | `$argon2id$` `$argon2i$` `$argon2d$` | Argon2 | ARGON2 |
 * | `$f_scrypt$` | Firebase scrypt | FIREBASE_SCRYPT |
 * | `$pbkdf2-<digest>$` | PBKDF2 (Kratos's form) | PBKDF2 |
 * | `$scrypt$` | scrypt (passlib's form) | SCRYPT |
 * | `$P$` `$S$` | phpass / Drupal 7 | PHPASS |
 * | `$wp$` | WordPress ≥ 6.8 | PHPASS |
 * | `$md5$` `$sha1$` `$sha256$` `$sha512$` | digest (Kratos's `pf=` form) | MD5, SHA1, SHA256, SHA512, LDAP |
 *
 * `$2` claims everything bcrypt-like and `$argon2` everything Argon2-like, as the reference's
 * sign-in does; none of the other prefixes starts with either.
 */
export const STORED_FORMS: readonly StoredForm[] = [
  argon2Form,
  bcryptForm,
  firebaseScryptForm,
  pbkdf2Form,
  scryptForm,
  portableForm,
  wordPressForm,
  digestForm,
];

export function formOf(stored: string): StoredForm | undefined {
  return STORED_FORMS.find((form) => form.claims(stored));
}
