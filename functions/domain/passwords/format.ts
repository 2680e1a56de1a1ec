import type { HashingAlgorithm } from './algorithm.js';
import { importDigest, importLdap } from './digest.js';
import { parseFirebaseScryptHash } from './firebase-scrypt.js';
import { formOf } from './forms.js';
import type { ParameterProblem } from './limits.js';
import { importPbkdf2 } from './pbkdf2.js';
import { importPhpass } from './phpass.js';
import { importScrypt } from './scrypt.js';

/**
 * Format error texts: the reference core's three (docs/reference-behaviour.md "Password hash formats") and the same wording for this
 * core's families. A refused cost or parameter appends `: <detail>` (HASH_LIMITS).
 */
export const HASH_FORMAT_ERRORS = {
  BCRYPT: 'Password hash is in invalid BCrypt format',
  ARGON2: 'Password hash is in invalid Argon2 format',
  FIREBASE_SCRYPT: 'Password hash is in invalid Firebase SCrypt format',
  PBKDF2: 'Password hash is in invalid PBKDF2 format',
  SCRYPT: 'Password hash is in invalid SCrypt format',
  PHPASS: 'Password hash is in invalid phpass format',
  MD5: 'Password hash is in invalid MD5 format',
  SHA1: 'Password hash is in invalid SHA-1 format',
  SHA256: 'Password hash is in invalid SHA-256 format',
  SHA512: 'Password hash is in invalid SHA-512 format',
  LDAP: 'Password hash is in invalid LDAP format',
} as const satisfies Record<HashingAlgorithm, string>;

const BCRYPT_PREFIXES = ['$2a', '$2b', '$2x', '$2y'] as const;
const ARGON2_PREFIXES = ['$argon2id', '$argon2i', '$argon2d'] as const;

/** Prefix test only, like the reference: `"$2a"` on its own passes. */
function hasBcryptPrefix(hash: string): boolean {
  return BCRYPT_PREFIXES.some((prefix) => hash.startsWith(prefix));
}

/** Prefix test only: `$argon2id`, `$argon2i` or `$argon2d`. */
function hasArgon2Prefix(hash: string): boolean {
  return ARGON2_PREFIXES.some((prefix) => hash.startsWith(prefix));
}

/**
 * Turns an imported hash into its stored form, by declared algorithm: a string (the canonical
 * form), a parameter problem found while converting, or undefined when the hash is not in any
 * accepted form of that algorithm. bcrypt, Argon2 and Firebase hashes are stored as given.
 */
const IMPORTERS: Record<HashingAlgorithm, (hash: string) => string | ParameterProblem | undefined> = {
  BCRYPT: (hash) => (hash.startsWith('$2') ? hash : undefined),
  ARGON2: (hash) => (hash.startsWith('$argon2') ? hash : undefined),
  FIREBASE_SCRYPT: (hash) => (hash.startsWith('$f_scrypt$') ? hash : undefined),
  PBKDF2: importPbkdf2,
  SCRYPT: importScrypt,
  PHPASS: importPhpass,
  MD5: (hash) => importDigest('md5', hash),
  SHA1: (hash) => importDigest('sha1', hash),
  SHA256: (hash) => importDigest('sha256', hash),
  SHA512: (hash) => importDigest('sha512', hash),
  LDAP: importLdap,
};

/** The outcome of {@link normaliseImportedHash}. */
export type ImportedHash =
  | { readonly ok: true; readonly storedHash: string }
  | {
      readonly ok: false;
      /** `Password hash is in invalid <X> format`, with `: <detail>` for a refused parameter. */
      readonly error: string;
      /** `format`: not a hash of that algorithm; `limit`: beyond HASH_LIMITS; `unsupported`: the KDF cannot run it. */
      readonly kind: 'format' | 'limit' | 'unsupported';
    };

/**
 * Validates an imported hash against its declared algorithm (already normalised, the hash
 * already trimmed) and returns either the stored form — ONE canonical string per family, from
 * which {@link verifyPassword} infers the scheme — or the error message to answer. Costs beyond
 * HASH_LIMITS and parameters the KDF cannot compute are refused here, so no accepted hash fails
 * or stalls at sign-in. Pure and cheap: no KDF runs. Applying it to a stored form returns that
 * form unchanged, so a staged row can be checked again by the import worker.
 */
export function normaliseImportedHash(algorithm: HashingAlgorithm, hash: string): ImportedHash {
  const formatError = HASH_FORMAT_ERRORS[algorithm];
  const converted = IMPORTERS[algorithm](hash);
  if (converted === undefined) return { ok: false, error: formatError, kind: 'format' };
  if (typeof converted !== 'string') {
    return { ok: false, error: `${formatError}: ${converted.detail}`, kind: converted.kind };
  }
  const read = formOf(converted)?.read(converted);
  if (!read) return { ok: false, error: formatError, kind: 'format' };
  if (read.problem) return { ok: false, error: `${formatError}: ${read.problem.detail}`, kind: read.problem.kind };
  return { ok: true, storedHash: converted };
}

/**
 * The `hashingAlgorithm` each stored form is imported under (the table in forms.ts), by prefix:
 * what names a problem of a hash given without one.
 */
const FAMILY_BY_PREFIX: readonly (readonly [string, HashingAlgorithm])[] = [
  ['$argon2', 'ARGON2'],
  ['$2', 'BCRYPT'],
  ['$f_scrypt$', 'FIREBASE_SCRYPT'],
  ['$pbkdf2-', 'PBKDF2'],
  ['$scrypt$', 'SCRYPT'],
  ['$P$', 'PHPASS'],
  ['$S$', 'PHPASS'],
  ['$wp$', 'PHPASS'],
  ['$md5$', 'MD5'],
  ['$sha1$', 'SHA1'],
  ['$sha256$', 'SHA256'],
  ['$sha512$', 'SHA512'],
];

/**
 * The import check of a hash given WITHOUT `hashingAlgorithm` (allowed beside a
 * `plainTextPassword` and stored as given, as the reference does). Sign-in infers the scheme from
 * the stored string, so a string that is a complete hash of a stored form is held to the same
 * cost bounds as a declared one: the message (`Password hash is in invalid <X> format: <detail>`)
 * when its parameters are beyond a bound or cannot be computed, else undefined. A string in no
 * stored form is never computed (sign-in answers wrong credentials for it) and passes.
 */
export function checkUndeclaredHash(hash: string): string | undefined {
  const problem = formOf(hash)?.read(hash)?.problem;
  if (!problem) return undefined;
  const family = FAMILY_BY_PREFIX.find(([prefix]) => hash.startsWith(prefix))?.[1];
  const message = family ? HASH_FORMAT_ERRORS[family] : 'Password hash is in invalid format';
  return `${message}: ${problem.detail}`;
}

/** The reference's own shape test for its three algorithms (prefix only for bcrypt and Argon2). */
function referenceShapeAccepts(algorithm: HashingAlgorithm, hash: string): boolean {
  switch (algorithm) {
    case 'BCRYPT':
      return hasBcryptPrefix(hash);
    case 'ARGON2':
      return hasArgon2Prefix(hash);
    case 'FIREBASE_SCRYPT':
      return parseFirebaseScryptHash(hash) !== undefined;
    default:
      return false;
  }
}

/**
 * The import check the callers that store the hash exactly as given use: the error message, or
 * undefined when `hash` may be stored as it is. The caller trims the hash first.
 *
 * - BCRYPT, ARGON2, FIREBASE_SCRYPT: the reference's shape test (prefix only for the first two),
 *   and, where the cost parameters can be read, HASH_LIMITS and what the KDF can compute.
 * - The other families pass only in their canonical stored form (the string
 *   {@link normaliseImportedHash} returns): any other accepted form needs converting first.
 */
export function checkHashFormat(algorithm: HashingAlgorithm, hash: string): string | undefined {
  const strict = normaliseImportedHash(algorithm, hash);
  if (strict.ok) return strict.storedHash === hash ? undefined : HASH_FORMAT_ERRORS[algorithm];
  if (strict.kind !== 'format') return strict.error;
  return referenceShapeAccepts(algorithm, hash) ? undefined : strict.error;
}
