/**
 * The `hashingAlgorithm` values an imported password hash may declare: the reference's three
 * (core-api-spec §4.2, §6) and this core's legacy families.
 */
export type HashingAlgorithm =
  | 'BCRYPT'
  | 'ARGON2'
  | 'FIREBASE_SCRYPT'
  | 'PBKDF2'
  | 'SCRYPT'
  | 'PHPASS'
  | 'MD5'
  | 'SHA1'
  | 'SHA256'
  | 'SHA512'
  | 'LDAP';

export const HASHING_ALGORITHMS: readonly HashingAlgorithm[] = [
  'BCRYPT',
  'ARGON2',
  'FIREBASE_SCRYPT',
  'PBKDF2',
  'SCRYPT',
  'PHPASS',
  'MD5',
  'SHA1',
  'SHA256',
  'SHA512',
  'LDAP',
];

/**
 * Maps a user-supplied algorithm name to the enum the way the reference does: surrounding
 * whitespace is ignored and the comparison is case-insensitive (`' Argon2 '` → `ARGON2`,
 * `'pbkdf2'` → `PBKDF2`). Returns undefined for anything else, including the empty string.
 */
export function normaliseHashingAlgorithm(raw: string): HashingAlgorithm | undefined {
  const candidate = raw.trim().toUpperCase();
  return (HASHING_ALGORITHMS as readonly string[]).includes(candidate) ? (candidate as HashingAlgorithm) : undefined;
}
