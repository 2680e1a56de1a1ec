/**
 * bcrypt itself: hash-wasm does the work (bcryptjs for the empty password, which hash-wasm
 * refuses). Hashing plain-text passwords and verifying the stored forms bcrypt.ts reads; apart
 * from the form, so the import checks do not carry the KDF.
 */
import { randomBytes } from 'node:crypto';
import bcryptjs from 'bcryptjs';
import { bcrypt } from 'hash-wasm';
import { BCRYPT_MAX_LOG_ROUNDS, BCRYPT_MIN_LOG_ROUNDS, checkBcryptCost, type ParsedBcrypt } from './bcrypt.js';
import { PasswordHashingError } from './errors.js';
import { compareDigests, type VerifyResult } from './result.js';
import type { Verify } from './scheme.js';

/** bcrypt only feeds the first 72 bytes of the (UTF-8) password into its key schedule. */
const BCRYPT_MAX_PASSWORD_BYTES = 72;

/**
 * The password as bcrypt sees it. hash-wasm refuses passwords over 72 bytes, so longer ones are
 * cut to their first 72 UTF-8 bytes (all bcrypt reads: the result is the same, see the tests);
 * the empty password, which hash-wasm also refuses, is left to bcryptjs.
 */
function bcryptInput(plain: string): Buffer | undefined {
  const bytes = Buffer.from(plain, 'utf8');
  if (bytes.length === 0) return undefined;
  return bytes.length > BCRYPT_MAX_PASSWORD_BYTES ? bytes.subarray(0, BCRYPT_MAX_PASSWORD_BYTES) : bytes;
}

/**
 * Hashes with bcrypt, producing a `$2a$<rounds>$…` string like the reference core. hash-wasm does
 * the work (bcryptjs for the empty password); everything after byte 72 is ignored, as the
 * reference does.
 */
export async function hashBcrypt(plain: string, logRounds: number): Promise<string> {
  if (!Number.isInteger(logRounds) || checkBcryptCost(logRounds)) {
    throw new PasswordHashingError(
      `bcrypt log rounds must be an integer between ${BCRYPT_MIN_LOG_ROUNDS} and ${BCRYPT_MAX_LOG_ROUNDS}`,
    );
  }
  const salt = randomBytes(16);
  const password = bcryptInput(plain);
  let hash: string;
  try {
    if (password === undefined) {
      const rounds = String(logRounds).padStart(2, '0');
      hash = await bcryptjs.hash(plain, `$2a$${rounds}$${bcryptjs.encodeBase64(salt, salt.length)}`);
    } else {
      hash = await bcrypt({ password, salt, costFactor: logRounds, outputType: 'encoded' });
    }
  } catch {
    throw new PasswordHashingError('bcrypt hashing failed');
  }
  // Both libraries already emit `$2a$` for these inputs; normalise defensively.
  return `$2a${hash.slice(3)}`;
}

/** `$2a$<cost>$` is 7 characters, the salt 22, the hash 31. */
const SALT_START = 7;
const HASH_START = 29;

/**
 * Checks a password against a complete `$2?$` hash (identifiers `$2a`/`$2b`/`$2x`/`$2y` compute
 * the same thing for passwords of at most 72 bytes, as the reference treats them): the hash is
 * recomputed with the stored salt and cost, and its 31 hash characters are compared with the
 * stored ones in constant time.
 */
export async function compareBcrypt(plain: string, stored: string): Promise<VerifyResult> {
  const setting = `$2a${stored.slice(3, HASH_START)}`;
  const password = bcryptInput(plain);
  let computed: string;
  try {
    if (password === undefined) {
      computed = await bcryptjs.hash(plain, setting);
    } else {
      const salt = Uint8Array.from(bcryptjs.decodeBase64(stored.slice(SALT_START, HASH_START), 16));
      const costFactor = Number(stored.slice(4, 6));
      computed = await bcrypt({ password, salt, costFactor, outputType: 'encoded' });
    }
  } catch {
    throw new PasswordHashingError('bcrypt verification failed');
  }
  const expected = Buffer.from(stored.slice(HASH_START), 'latin1');
  const actual = Buffer.from(computed.slice(HASH_START), 'latin1');
  return compareDigests(actual, expected);
}

/** The stored bcrypt string is checked as it is (see compareBcrypt). */
export const verifyBcrypt: Verify<ParsedBcrypt> = (plain, { hash }) => compareBcrypt(plain, hash);
