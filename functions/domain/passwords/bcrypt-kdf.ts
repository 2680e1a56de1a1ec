/**
 * bcrypt itself, computed by hash-wasm: hashing plain-text passwords and verifying the stored
 * forms bcrypt.ts reads; apart from the form, so the import checks do not carry the KDF.
 */
import { randomBytes } from 'node:crypto';
import { bcrypt } from 'hash-wasm';
import { BCRYPT_MAX_LOG_ROUNDS, BCRYPT_MIN_LOG_ROUNDS, checkBcryptCost, type ParsedBcrypt } from './bcrypt.js';
import { PasswordHashingError } from './errors.js';
import { compareDigests, type VerifyResult } from './result.js';
import type { Verify } from './scheme.js';

/** bcrypt only feeds the first 72 bytes of the (UTF-8) password into its key schedule. */
const BCRYPT_MAX_PASSWORD_BYTES = 72;

const BCRYPT_SALT_BYTES = 16;

/**
 * The empty password as hash-wasm will take it. bcrypt's key schedule reads the password's bytes
 * followed by one NUL byte, repeated end to end until 72 bytes are filled: for "" that is 72 zero
 * bytes, and for the one-byte password "\0" (its byte, then the NUL) also 72 zero bytes. The two
 * therefore have the same hash under every salt and cost; hash-wasm refuses "" but not "\0".
 */
const EMPTY_PASSWORD_KEY = Buffer.from([0]);

/**
 * The password as bcrypt sees it. hash-wasm refuses passwords over 72 bytes, so longer ones are
 * cut to their first 72 UTF-8 bytes (all bcrypt reads: the result is the same, see the tests);
 * the empty password, which hash-wasm also refuses, becomes its equivalent above.
 */
function bcryptInput(plain: string): Buffer {
  const bytes = Buffer.from(plain, 'utf8');
  if (bytes.length === 0) return EMPTY_PASSWORD_KEY;
  return bytes.length > BCRYPT_MAX_PASSWORD_BYTES ? bytes.subarray(0, BCRYPT_MAX_PASSWORD_BYTES) : bytes;
}

/** bcrypt's Base64 alphabet, and the standard one in the same order (RFC 4648 §4). */
const BCRYPT_BASE64 = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const STANDARD_BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * The 16 salt bytes of a stored hash's 22 salt characters. bcrypt's Base64 differs from the
 * standard one only in its alphabet, so each character is swapped for the standard character of
 * the same value and Node decodes the result. The 4 unused low bits of the last character are
 * ignored, as bcrypt ignores them (stored hashes from other implementations may set them).
 * Undefined when a character is outside the alphabet.
 */
function decodeBcryptSalt(text: string): Buffer | undefined {
  let standard = '';
  for (const char of text) {
    const value = BCRYPT_BASE64.indexOf(char);
    if (value < 0) return undefined;
    standard += STANDARD_BASE64[value];
  }
  const salt = Buffer.from(standard, 'base64');
  return salt.length === BCRYPT_SALT_BYTES ? salt : undefined;
}

/**
 * Hashes with bcrypt, producing a `$2a$<rounds>$…` string like the reference core; everything
 * after byte 72 is ignored, as the reference does.
 */
export async function hashBcrypt(plain: string, logRounds: number): Promise<string> {
  if (!Number.isInteger(logRounds) || checkBcryptCost(logRounds)) {
    throw new PasswordHashingError(
      `bcrypt log rounds must be an integer between ${BCRYPT_MIN_LOG_ROUNDS} and ${BCRYPT_MAX_LOG_ROUNDS}`,
    );
  }
  const salt = randomBytes(BCRYPT_SALT_BYTES);
  let hash: string;
  try {
    hash = await bcrypt({ password: bcryptInput(plain), salt, costFactor: logRounds, outputType: 'encoded' });
  } catch {
    throw new PasswordHashingError('bcrypt hashing failed');
  }
  // hash-wasm already emits `$2a$`; normalise defensively.
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
  let computed: string;
  try {
    const salt = decodeBcryptSalt(stored.slice(SALT_START, HASH_START));
    if (salt === undefined) throw new Error('not a bcrypt salt');
    const costFactor = Number(stored.slice(4, 6));
    computed = await bcrypt({ password: bcryptInput(plain), salt, costFactor, outputType: 'encoded' });
  } catch {
    throw new PasswordHashingError('bcrypt verification failed');
  }
  const expected = Buffer.from(stored.slice(HASH_START), 'latin1');
  const actual = Buffer.from(computed.slice(HASH_START), 'latin1');
  return compareDigests(actual, expected);
}

/** The stored bcrypt string is checked as it is (see compareBcrypt). */
export const verifyBcrypt: Verify<ParsedBcrypt> = (plain, { hash }) => compareBcrypt(plain, hash);
