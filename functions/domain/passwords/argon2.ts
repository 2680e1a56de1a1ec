import { randomBytes, timingSafeEqual } from 'node:crypto';
import { argon2d, argon2i, argon2id } from 'hash-wasm';
import { PasswordHashingError } from './errors.js';
import { fromMatch, MAX_KDF_MEMORY_BYTES, UNSUPPORTED_HASH, type VerifyResult, WRONG_PASSWORD } from './result.js';

export interface Argon2Params {
  readonly iterations: number;
  readonly memoryKb: number;
  readonly parallelism: number;
}

const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** The only Argon2 version hash-wasm implements (0x13). Older (0x10) hashes cannot be checked. */
const SUPPORTED_VERSION = 19;
const MAX_PARALLELISM = 0xffffff;
const MIN_SALT_BYTES = 8;
const MIN_HASH_BYTES = 4;

/** `$argon2<type>[$v=<version>]$<params>$<salt>$<hash>` with unpadded (or padded) standard Base64. */
const ARGON2_SHAPE =
  /^\$argon2(id|i|d)(?:\$v=([0-9]+))?\$([a-z]=[0-9]+(?:,[a-z]=[0-9]+)*)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

const ARGON2_FUNCTIONS = { id: argon2id, i: argon2i, d: argon2d } as const;

function isPositiveInteger(value: number, max = Number.MAX_SAFE_INTEGER): boolean {
  return Number.isInteger(value) && value >= 1 && value <= max;
}

/**
 * argon2id with a random 16-byte salt and a 32-byte hash, encoded as
 * `$argon2id$v=19$m=<memoryKb>,t=<iterations>,p=<parallelism>$<salt>$<hash>`.
 */
export async function hashArgon2id(plain: string, params: Argon2Params): Promise<string> {
  const { iterations, memoryKb, parallelism } = params;
  if (!isPositiveInteger(iterations)) throw new PasswordHashingError('argon2 iterations must be a positive integer');
  if (!isPositiveInteger(parallelism, MAX_PARALLELISM)) {
    throw new PasswordHashingError(`argon2 parallelism must be an integer between 1 and ${MAX_PARALLELISM}`);
  }
  if (!Number.isInteger(memoryKb) || memoryKb < 8 * parallelism || memoryKb * 1024 > MAX_KDF_MEMORY_BYTES) {
    throw new PasswordHashingError('argon2 memory must be an integer of at least 8 KiB per lane and at most 1 GiB');
  }
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

interface ParsedArgon2 {
  readonly type: keyof typeof ARGON2_FUNCTIONS;
  readonly version: number | undefined;
  readonly memoryKb: number;
  readonly iterations: number;
  readonly parallelism: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

function parseArgon2(stored: string): ParsedArgon2 | undefined {
  const match = ARGON2_SHAPE.exec(stored);
  if (!match) return undefined;
  const [, type, version, paramText = '', salt = '', hash = ''] = match;
  const values = new Map<string, number>();
  for (const pair of paramText.split(',')) {
    const [name = '', value = ''] = pair.split('=');
    if (values.has(name)) return undefined;
    values.set(name, Number(value));
  }
  const memoryKb = values.get('m');
  const iterations = values.get('t');
  const parallelism = values.get('p');
  if (values.size !== 3 || memoryKb === undefined || iterations === undefined || parallelism === undefined) {
    return undefined;
  }
  return {
    type: type as ParsedArgon2['type'],
    version: version === undefined ? undefined : Number(version),
    memoryKb,
    iterations,
    parallelism,
    salt: Buffer.from(salt, 'base64'),
    hash: Buffer.from(hash, 'base64'),
  };
}

/**
 * Verifies a PHC-encoded argon2id/argon2i/argon2d hash (parameters m, t, p in any order). The
 * digest is recomputed with the stored parameters and compared in constant time.
 */
export async function verifyArgon2(plain: string, stored: string): Promise<VerifyResult> {
  const parsed = parseArgon2(stored);
  if (!parsed) return WRONG_PASSWORD;
  const { type, version, memoryKb, iterations, parallelism, salt, hash } = parsed;
  if (version !== SUPPORTED_VERSION) return UNSUPPORTED_HASH;
  if (
    !isPositiveInteger(iterations) ||
    !isPositiveInteger(parallelism, MAX_PARALLELISM) ||
    memoryKb < 8 * parallelism ||
    salt.length < MIN_SALT_BYTES ||
    hash.length < MIN_HASH_BYTES
  ) {
    return WRONG_PASSWORD;
  }
  if (memoryKb * 1024 > MAX_KDF_MEMORY_BYTES) return UNSUPPORTED_HASH;
  // hash-wasm refuses empty passwords; no stored hash is reachable with one at sign-in.
  if (plain.length === 0) return WRONG_PASSWORD;
  let computed: Uint8Array;
  try {
    computed = await ARGON2_FUNCTIONS[type]({
      password: plain,
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
  return fromMatch(computed.length === hash.length && timingSafeEqual(computed, hash));
}
