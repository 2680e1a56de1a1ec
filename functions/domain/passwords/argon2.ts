import { decodeBase64 } from './encoding.js';
import { aboveLimit, belowMinimum, HASH_LIMITS, type ParameterProblem, unsupported } from './limits.js';
import { defineForm } from './scheme.js';

export interface Argon2Params {
  readonly iterations: number;
  readonly memoryKb: number;
  readonly parallelism: number;
}

/** The only Argon2 version hash-wasm implements (0x13). Older (0x10) hashes cannot be checked. */
const SUPPORTED_VERSION = 19;
/** Argon2's own minimums (RFC 9106 §3.1): an 8-byte salt, a 4-byte tag. */
const MIN_SALT_BYTES = 8;
const MIN_HASH_BYTES = 4;
const MAX_HASH_BYTES = 1024;

/** `$argon2<type>[$v=<version>]$<params>$<salt>$<hash>` with unpadded (or padded) standard Base64. */
const ARGON2_SHAPE =
  /^\$argon2(id|i|d)(?:\$v=([0-9]{1,5}))?\$([a-z]=[0-9]{1,10}(?:,[a-z]=[0-9]{1,10})*)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

/**
 * Whether hash-wasm can run these parameters and they are within HASH_LIMITS. Also what
 * hashArgon2id (argon2-kdf.ts) accepts, so the core never writes a hash it would refuse to verify.
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

export interface ParsedArgon2 extends Argon2Params {
  readonly type: 'id' | 'i' | 'd';
  /** Undefined when the string has no `v=` part (version 0x10). */
  readonly version: number | undefined;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/**
 * Reads a PHC-encoded Argon2 hash: type, optional version, exactly the parameters m, t and p (any
 * order), strict Base64 salt and hash of the lengths Argon2 allows. Undefined when malformed.
 */
function parseArgon2(stored: string): ParsedArgon2 | undefined {
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
 */
export const argon2Form = defineForm<ParsedArgon2>({
  legacy: false,
  claims: (stored) => stored.startsWith('$argon2'),
  parse: parseArgon2,
  check: checkParsedArgon2,
});
