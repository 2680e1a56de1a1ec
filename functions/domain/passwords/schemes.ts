import { argon2Scheme } from './argon2.js';
import { bcryptScheme } from './bcrypt.js';
import { digestScheme } from './digest.js';
import { firebaseScryptScheme } from './firebase-scrypt.js';
import { pbkdf2Scheme } from './pbkdf2.js';
import { portableScheme, wordPressScheme } from './phpass.js';
import type { StoredScheme } from './scheme.js';
import { scryptScheme } from './scrypt.js';

/**
 * Every stored form, each claiming its strings by a prefix no other one shares:
 *
 * | stored prefix | scheme | from `hashingAlgorithm` |
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
export const STORED_SCHEMES: readonly StoredScheme[] = [
  argon2Scheme,
  bcryptScheme,
  firebaseScryptScheme,
  pbkdf2Scheme,
  scryptScheme,
  portableScheme,
  wordPressScheme,
  digestScheme,
];

export function schemeOf(stored: string): StoredScheme | undefined {
  return STORED_SCHEMES.find((scheme) => scheme.claims(stored));
}
