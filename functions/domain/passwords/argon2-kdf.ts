/**
 * Argon2 itself (hash-wasm): hashing plain-text passwords with argon2id and verifying the stored
 * forms argon2.ts reads. Apart from the form, so the import checks do not carry the KDF.
 */
import { randomBytes } from 'node:crypto';
import { argon2d, argon2i, argon2id } from 'hash-wasm';
import { type Argon2Params, checkArgon2Params, type ParsedArgon2 } from './argon2.js';
import { PasswordHashingError } from './errors.js';
import { compareDigests, type VerifyResult, WRONG_PASSWORD } from './result.js';
import type { Verify } from './scheme.js';

const SALT_BYTES = 16;
const HASH_BYTES = 32;

const ARGON2_FUNCTIONS = { id: argon2id, i: argon2i, d: argon2d } as const;

/**
 * argon2id with a random 16-byte salt and a 32-byte hash, encoded as
 * `$argon2id$v=19$m=<memoryKb>,t=<iterations>,p=<parallelism>$<salt>$<hash>`.
 */
export async function hashArgon2id(plain: string, params: Argon2Params): Promise<string> {
  const { iterations, memoryKb, parallelism } = params;
  if (![iterations, memoryKb, parallelism].every(Number.isSafeInteger)) {
    throw new PasswordHashingError('argon2 parameters must be integers');
  }
  const problem = checkArgon2Params(params);
  if (problem) throw new PasswordHashingError(`argon2 parameters refused: ${problem.detail}`);
  if (plain.length === 0) throw new PasswordHashingError('argon2 cannot hash an empty password');
  try {
    return await argon2id({
      password: plain,
      salt: randomBytes(SALT_BYTES),
      iterations,
      memorySize: memoryKb,
      parallelism,
      hashLength: HASH_BYTES,
      outputType: 'encoded',
    });
  } catch {
    throw new PasswordHashingError('argon2 hashing failed');
  }
}

/**
 * hash-wasm refuses the empty password, which therefore never matches an Argon2 hash; it is
 * answered after the same computation with this stand-in, so it takes a verify's time.
 */
const EMPTY_PASSWORD_STAND_IN = '\u0000';

/** The digest is recomputed with the stored parameters and compared in constant time. */
export const verifyArgon2: Verify<ParsedArgon2> = async (plain, parsed): Promise<VerifyResult> => {
  const { type, memoryKb, iterations, parallelism, salt, hash } = parsed;
  let computed: Uint8Array;
  try {
    computed = await ARGON2_FUNCTIONS[type]({
      password: plain.length === 0 ? EMPTY_PASSWORD_STAND_IN : plain,
      salt,
      iterations,
      memorySize: memoryKb,
      parallelism,
      hashLength: hash.length,
      outputType: 'binary',
    });
  } catch {
    throw new PasswordHashingError('argon2 verification failed');
  }
  return plain.length === 0 ? WRONG_PASSWORD : compareDigests(computed, hash);
};
