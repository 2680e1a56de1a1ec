import { scrypt } from 'node:crypto';
import { base64Unpadded, decodeBase64, parseDecimal } from './encoding.js';
import { PasswordHashingError } from './errors.js';
import { aboveLimit, belowMinimum, HASH_LIMITS, type ParameterProblem, unsupported } from './limits.js';
import { compareDigests, type VerifyResult } from './result.js';
import { defineForm, type Verify } from './scheme.js';

/**
 * Salts and derived keys this core accepts, in bytes (real systems use 16 to 32 and 32 to 64); with
 * these, every stored form of a hash of at most 256 characters stays within 256 characters.
 */
export const KDF_SALT_MAX_BYTES = 64;
export const KDF_KEY_MIN_BYTES = 16;
export const KDF_KEY_MAX_BYTES = 64;

export interface ScryptParams {
  readonly logN: number;
  readonly r: number;
  readonly p: number;
  readonly keyLength: number;
}

/**
 * scrypt through node:crypto, which runs it on the libuv thread pool. `maxmem` is set to what the
 * parameters need (128·N·r for V, 128·r·p for B, plus slack); HASH_LIMITS keep that ≤ 129 MiB.
 */
export function scryptKey(password: Buffer, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.logN;
  const maxmem = 128 * N * params.r + 128 * params.r * params.p + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(password, salt, params.keyLength, { N, r: params.r, p: params.p, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export interface ParsedScrypt extends ScryptParams {
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/**
 * `$scrypt$ln=<n>,r=<r>,p=<p>$<salt>$<hash>`, Base64 with or without padding. In passlib's form
 * `ln` is log2 N; Kratos writes N itself there. No real hash uses N < 32, so `ln` ≤ 31 is read as
 * log2 N and a larger `ln` as N (which must then be a power of two).
 */
const SCRYPT_SHAPE = /^\$scrypt\$ln=([0-9]{1,10}),r=([0-9]{1,10}),p=([0-9]{1,10})\$([^$]*)\$([^$]+)$/;
const LARGEST_LOG2_LN = 31;

interface ReadScrypt {
  /** log2 N, or undefined when `ln` was an N that is not a power of two. */
  readonly logN: number | undefined;
  readonly ln: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

function readScrypt(text: string): ReadScrypt | undefined {
  const match = SCRYPT_SHAPE.exec(text);
  if (!match) return undefined;
  const [, lnText = '', rText = '', pText = '', saltText = '', hashText = ''] = match;
  const ln = parseDecimal(lnText);
  const r = parseDecimal(rText);
  const p = parseDecimal(pText);
  const salt = decodeBase64(saltText);
  const hash = decodeBase64(hashText);
  if (ln === undefined || r === undefined || p === undefined || !salt || !hash) return undefined;
  if (salt.length > KDF_SALT_MAX_BYTES || hash.length < KDF_KEY_MIN_BYTES || hash.length > KDF_KEY_MAX_BYTES) {
    return undefined;
  }
  let logN: number | undefined = ln;
  if (ln > LARGEST_LOG2_LN) logN = Number.isInteger(Math.log2(ln)) ? Math.log2(ln) : undefined;
  return { logN, ln, r, p, salt, hash };
}

function checkScryptParams({ logN, r, p }: Pick<ScryptParams, 'logN' | 'r' | 'p'>): ParameterProblem | undefined {
  if (logN < 1) return belowMinimum('ln', logN, 1);
  if (r < 1) return belowMinimum('r', r, 1);
  if (p < 1) return belowMinimum('p', p, 1);
  const limits = HASH_LIMITS.scrypt;
  if (logN > limits.maxLogN) return aboveLimit('ln', logN, limits.maxLogN);
  if (r > limits.maxR) return aboveLimit('r', r, limits.maxR);
  if (p > limits.maxP) return aboveLimit('p', p, limits.maxP);
  const nrp = 2 ** logN * r * p;
  if (nrp > limits.maxNrp) return aboveLimit('N × r × p', nrp, limits.maxNrp);
  // scrypt (RFC 7914 §6) needs N < 2^(128·r/8).
  if (logN >= 16 * r) return unsupported(`ln ${logN} needs r above ${Math.floor(logN / 16)}`);
  return undefined;
}

/**
 * The `SCRYPT` import: passlib's `$scrypt$ln=<log2 N>,r=…,p=…$<salt>$<hash>` (or Kratos's, with N
 * itself in `ln`). Canonical stored form: passlib's, log2 N, unpadded Base64.
 */
export function importScrypt(text: string): string | ParameterProblem | undefined {
  const read = readScrypt(text);
  if (!read) return undefined;
  if (read.logN === undefined) return unsupported(`ln ${read.ln} is not a power of two`);
  return `$scrypt$ln=${read.logN},r=${read.r},p=${read.p}$${base64Unpadded(read.salt)}$${base64Unpadded(read.hash)}`;
}

function parseStoredScrypt(stored: string): ParsedScrypt | undefined {
  const read = readScrypt(stored);
  if (!read || read.logN === undefined) return undefined;
  return { logN: read.logN, r: read.r, p: read.p, keyLength: read.hash.length, salt: read.salt, hash: read.hash };
}

export const scryptForm = defineForm<ParsedScrypt>({
  legacy: true,
  claims: (stored) => stored.startsWith('$scrypt$'),
  parse: parseStoredScrypt,
  check: checkScryptParams,
});

export const verifyScrypt: Verify<ParsedScrypt> = async (plain, parsed): Promise<VerifyResult> => {
  let computed: Buffer;
  try {
    computed = await scryptKey(Buffer.from(plain, 'utf8'), parsed.salt, parsed);
  } catch {
    throw new PasswordHashingError('scrypt verification failed');
  }
  return compareDigests(computed, parsed.hash);
};
