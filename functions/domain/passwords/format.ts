import type { HashingAlgorithm } from './algorithm.js';

/** Format error texts of the reference core (core-api-spec §6). */
export const HASH_FORMAT_ERRORS = {
  BCRYPT: 'Password hash is in invalid BCrypt format',
  ARGON2: 'Password hash is in invalid Argon2 format',
  FIREBASE_SCRYPT: 'Password hash is in invalid Firebase SCrypt format',
} as const satisfies Record<HashingAlgorithm, string>;

const BCRYPT_PREFIXES = ['$2a', '$2b', '$2x', '$2y'] as const;
const ARGON2_PREFIXES = ['$argon2id', '$argon2i', '$argon2d'] as const;

const FIREBASE_SCRYPT_MARKER = 'f_scrypt';
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/** Prefix test only, like the reference: `"$2a"` on its own passes. */
export function hasBcryptPrefix(hash: string): boolean {
  return BCRYPT_PREFIXES.some((prefix) => hash.startsWith(prefix));
}

/** Prefix test only: `$argon2id`, `$argon2i` or `$argon2d`. */
export function hasArgon2Prefix(hash: string): boolean {
  return ARGON2_PREFIXES.some((prefix) => hash.startsWith(prefix));
}

/** The pieces of a `$f_scrypt$<hash>$<salt>$m=<memCost>$r=<rounds>$s=<saltSeparator>` string. */
export interface FirebaseScryptHash {
  /** Base64 of the expected AES-CTR ciphertext, compared as text. */
  readonly hash: string;
  /** Base64 of the per-user salt. */
  readonly salt: string;
  /** Base64 of the project-wide salt separator. */
  readonly saltSeparator: string;
  /** log2 of the scrypt cost N. */
  readonly memCost: number;
  /** scrypt block size r. */
  readonly rounds: number;
}

/** A signed decimal that fits a 32-bit int, the range the reference's integer parse accepts. */
function parseInt32(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = Number(text);
  return value >= INT32_MIN && value <= INT32_MAX ? value : undefined;
}

/**
 * Parses the Firebase scrypt storage format: exactly seven `$`-separated parts, the first empty,
 * the second `f_scrypt`, then hash and salt, then `m=`, `r=` and `s=` in any order. All three
 * parameters must be present, m and r must be integers and s must not be empty. Returns
 * undefined when the string is not in that shape.
 */
export function parseFirebaseScryptHash(stored: string): FirebaseScryptHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 7 || parts[0] !== '' || parts[1] !== FIREBASE_SCRYPT_MARKER) return undefined;
  const [, , hash = '', salt = ''] = parts;
  let memCost: number | undefined;
  let rounds: number | undefined;
  let saltSeparator: string | undefined;
  for (const part of parts.slice(4)) {
    const value = part.slice(2);
    if (part.startsWith('m=')) {
      memCost = parseInt32(value);
      if (memCost === undefined) return undefined;
    } else if (part.startsWith('r=')) {
      rounds = parseInt32(value);
      if (rounds === undefined) return undefined;
    } else if (part.startsWith('s=')) {
      if (value === '') return undefined;
      saltSeparator = value;
    }
  }
  if (memCost === undefined || rounds === undefined || saltSeparator === undefined) return undefined;
  return { hash, salt, saltSeparator, memCost, rounds };
}

/**
 * Checks an imported hash against the declared algorithm and returns the reference's format
 * error message, or undefined when the hash is acceptable. The caller trims the hash first.
 */
export function checkHashFormat(algorithm: HashingAlgorithm, hash: string): string | undefined {
  switch (algorithm) {
    case 'BCRYPT':
      return hasBcryptPrefix(hash) ? undefined : HASH_FORMAT_ERRORS.BCRYPT;
    case 'ARGON2':
      return hasArgon2Prefix(hash) ? undefined : HASH_FORMAT_ERRORS.ARGON2;
    case 'FIREBASE_SCRYPT':
      return parseFirebaseScryptHash(hash) ? undefined : HASH_FORMAT_ERRORS.FIREBASE_SCRYPT;
  }
}

/**
 * Infers the algorithm of a stored hash from its shape, in the order sign-in uses: Argon2 prefix,
 * BCrypt prefix, Firebase scrypt format. Undefined when none applies (for the hash-import API
 * that is `Password hash is in invalid format`).
 */
export function detectHashingAlgorithm(hash: string): HashingAlgorithm | undefined {
  if (hasArgon2Prefix(hash)) return 'ARGON2';
  if (hasBcryptPrefix(hash)) return 'BCRYPT';
  if (parseFirebaseScryptHash(hash)) return 'FIREBASE_SCRYPT';
  return undefined;
}
