import { randomBytes } from 'node:crypto';
import bcryptjs from 'bcryptjs';
import { bcrypt, bcryptVerify } from 'hash-wasm';
import { PasswordHashingError } from './errors.js';
import { fromMatch, type VerifyResult, WRONG_PASSWORD } from './result.js';

/** bcrypt only feeds the first 72 bytes of the (UTF-8) password into its key schedule. */
const BCRYPT_MAX_PASSWORD_BYTES = 72;
export const BCRYPT_MIN_LOG_ROUNDS = 4;
export const BCRYPT_MAX_LOG_ROUNDS = 31;

/** `$2?$<two-digit cost>$<22 chars salt><31 chars hash>` in bcrypt's own Base64 alphabet. */
const BCRYPT_HASH_SHAPE = /^\$2[abxy]\$([0-9]{2})\$[./A-Za-z0-9]{53}$/;

/** hash-wasm refuses empty passwords and ones over 72 bytes; bcryptjs handles those. */
function needsBcryptjs(plain: string): boolean {
  const bytes = Buffer.byteLength(plain, 'utf8');
  return bytes === 0 || bytes > BCRYPT_MAX_PASSWORD_BYTES;
}

/**
 * Hashes with bcrypt, producing a `$2a$<rounds>$…` string like the reference core.
 * hash-wasm does the work; it refuses passwords over 72 bytes (and empty ones), which go to
 * bcryptjs (async API), which ignores everything after byte 72 as the reference does.
 */
export async function hashBcrypt(plain: string, logRounds: number): Promise<string> {
  if (!Number.isInteger(logRounds) || logRounds < BCRYPT_MIN_LOG_ROUNDS || logRounds > BCRYPT_MAX_LOG_ROUNDS) {
    throw new PasswordHashingError(
      `bcrypt log rounds must be an integer between ${BCRYPT_MIN_LOG_ROUNDS} and ${BCRYPT_MAX_LOG_ROUNDS}`,
    );
  }
  const salt = randomBytes(16);
  let hash: string;
  try {
    if (needsBcryptjs(plain)) {
      const rounds = String(logRounds).padStart(2, '0');
      hash = await bcryptjs.hash(plain, `$2a$${rounds}$${bcryptjs.encodeBase64(salt, salt.length)}`);
    } else {
      hash = await bcrypt({ password: plain, salt, costFactor: logRounds, outputType: 'encoded' });
    }
  } catch {
    throw new PasswordHashingError('bcrypt hashing failed');
  }
  // Both libraries already emit `$2a$` for these inputs; normalise defensively.
  return `$2a${hash.slice(3)}`;
}

/**
 * Verifies a `$2a`/`$2b`/`$2x`/`$2y` hash. Like the reference, the identifier is rewritten to
 * `$2a` first (for passwords of at most 72 bytes all four compute the same thing). A hash that is
 * not a complete bcrypt string counts as a wrong password.
 */
export async function verifyBcrypt(plain: string, stored: string): Promise<VerifyResult> {
  const shape = BCRYPT_HASH_SHAPE.exec(stored);
  const cost = Number(shape?.[1]);
  if (!shape || cost < BCRYPT_MIN_LOG_ROUNDS || cost > BCRYPT_MAX_LOG_ROUNDS) return WRONG_PASSWORD;
  const normalised = `$2a${stored.slice(3)}`;
  try {
    const matches = needsBcryptjs(plain)
      ? await bcryptjs.compare(plain, normalised)
      : await bcryptVerify({ password: plain, hash: normalised });
    return fromMatch(matches);
  } catch {
    throw new PasswordHashingError('bcrypt verification failed');
  }
}
