import { randomBytes } from 'node:crypto';
import { argon2d, argon2i, argon2id } from 'hash-wasm';
import { decodeBase64 } from './encoding.js';
import { PasswordHashingError } from './errors.js';
import { aboveLimit, belowMinimum, HASH_LIMITS, type ParameterProblem, unsupported } from './limits.js';
import { compareDigests, type VerifyResult, WRONG_PASSWORD } from './result.js';
import { defineScheme } from './scheme.js';

export interface Argon2Params {
  readonly iterations: number;
  readonly memoryKb: number;
  readonly parallelism: number;
}

const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** The only Argon2 version hash-wasm implements (0x13). Older (0x10) hashes cannot be checked. */
const SUPPORTED_VERSION = 19;
/** Argon2's own minimums (RFC 9106 §3.1): an 8-byte salt, a 4-byte tag. */
const MIN_SALT_BYTES = 8;
const MIN_HASH_BYTES = 4;
const MAX_HASH_BYTES = 1024;

/** `$argon2<type>[$v=<version>]$<params>$<salt>$<hash>` with unpadded (or padded) standard Base64. */
const ARGON2_SHAPE =
  /^\$argon2(id|i|d)(?:\$v=([0-9]{1,5}))?\$([a-z]=[0-9]{1,10}(?:,[a-z]=[0-9]{1,10})*)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

const ARGON2_FUNCTIONS = { id: argon2id, i: argon2i, d: argon2d } as const;

/**
 * Whether hash-wasm can run these parameters and they are within HASH_LIMITS. Also what
 * {@link hashArgon2id} accepts, so the core never writes a hash it would refuse to verify.
 */
export function checkArgon2Params({ iterations, memoryKb, parallelism }: Argon2Params): ParameterProblem | undefined {
  if (iterations < 1) return belowMinimum('t', iterations, 1);
  if (parallelism < 1) return belowMinimum('p', parallelism, 1);
  if (memoryKb < 8 * parallelism) return unsupported(`m ${memoryKb} is below 8 × p (${8 * parallelism})`);
  const limits = HASH_LIMITS.argon2;
  if (iterations > limits.maxIterations) return aboveLimit('t', iterations, limits.maxIterations);
  if (parallelism > limits.maxParallelism) return aboveLimit('p', parallelism, limits.maxParallelism);
  if (memoryKb * iterations > limits.maxMemoryTimesIterationsKiB) {
    return aboveLimit('m × t', memoryKb * iterations, `${limits.maxMemoryTimesIterationsKiB} (KiB × passes)`);
  }
  return undefined;
}

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

export interface ParsedArgon2 extends Argon2Params {
  readonly type: keyof typeof ARGON2_FUNCTIONS;
  /** Undefined when the string has no `v=` part (version 0x10). */
  readonly version: number | undefined;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/**
 * Reads a PHC-encoded Argon2 hash: type, optional version, exactly the parameters m, t and p (any
 * order), strict Base64 salt and hash of the lengths Argon2 allows. Undefined when malformed.
 */
export function parseArgon2(stored: string): ParsedArgon2 | undefined {
  const match = ARGON2_SHAPE.exec(stored);
  if (!match) return undefined;
  const [, type, version, paramText = '', saltText = '', hashText = ''] = match;
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
  const salt = decodeBase64(saltText);
  const hash = decodeBase64(hashText);
  if (!salt || !hash || hash.length < MIN_HASH_BYTES || hash.length > MAX_HASH_BYTES) return undefined;
  return {
    type: type as ParsedArgon2['type'],
    version: version === undefined ? undefined : Number(version),
    memoryKb,
    iterations,
    parallelism,
    salt,
    hash,
  };
}

function checkParsedArgon2(parsed: ParsedArgon2): ParameterProblem | undefined {
  if (parsed.version !== SUPPORTED_VERSION) {
    return unsupported(`version ${parsed.version ?? '16 (no v=)'} is not supported (only v=${SUPPORTED_VERSION})`);
  }
  if (parsed.salt.length < MIN_SALT_BYTES) {
    return unsupported(`a salt of ${parsed.salt.length} bytes is below Argon2's minimum of ${MIN_SALT_BYTES}`);
  }
  return checkArgon2Params(parsed);
}

/**
 * Stored form: the PHC string as imported (`$argon2id$`, `$argon2i$`, `$argon2d$`, version 19).
 * The digest is recomputed with the stored parameters and compared in constant time.
 */
export const argon2Scheme = defineScheme<ParsedArgon2>({
  legacy: false,
  claims: (stored) => stored.startsWith('$argon2'),
  parse: parseArgon2,
  check: checkParsedArgon2,
  async verify(plain, parsed): Promise<VerifyResult> {
    // hash-wasm refuses empty passwords; no stored hash is reachable with one at sign-in.
    if (plain.length === 0) return WRONG_PASSWORD;
    const { type, memoryKb, iterations, parallelism, salt, hash } = parsed;
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
    return compareDigests(computed, hash);
  },
});
