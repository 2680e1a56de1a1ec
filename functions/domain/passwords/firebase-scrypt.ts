import { createCipheriv } from 'node:crypto';
import { decodeBase64 } from './encoding.js';
import { PasswordHashingError } from './errors.js';
import { aboveLimit, belowMinimum, HASH_LIMITS, type ParameterProblem, unsupported } from './limits.js';
import { compareDigests, MISSING_FIREBASE_SIGNER_KEY, type VerifyResult } from './result.js';
import { defineForm, type Verify } from './scheme.js';
import { scryptKey } from './scrypt.js';

const FIREBASE_SCRYPT_MARKER = 'f_scrypt';
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
const DERIVED_KEY_BYTES = 64;
const AES_KEY_BYTES = 32;
const ZERO_IV = Buffer.alloc(16);

/** The pieces of a `$f_scrypt$<hash>$<salt>$m=<memCost>$r=<rounds>$s=<saltSeparator>` string. */
export interface FirebaseScryptHash {
  /** Base64 of the expected AES-CTR ciphertext. */
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
 * Parses the Firebase scrypt storage format as the reference does: exactly seven `$`-separated
 * parts, the first empty, the second `f_scrypt`, then hash and salt, then `m=`, `r=` and `s=` in
 * any order. All three parameters must be present, m and r must be integers and s must not be
 * empty. Returns undefined when the string is not in that shape.
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

/** The strictly decoded pieces of a Firebase hash whose text passed the reference's shape check. */
interface DecodedFirebaseHash {
  readonly memCost: number;
  readonly rounds: number;
  readonly salt: Buffer;
  readonly saltSeparator: Buffer;
  readonly hash: Buffer;
}

/** Reference shape plus strict Base64 in every part and a non-empty hash; undefined otherwise. */
function decodeFirebaseScryptHash(stored: string): DecodedFirebaseHash | undefined {
  const parsed = parseFirebaseScryptHash(stored);
  if (!parsed) return undefined;
  return decodeParts(parsed);
}

function decodeParts(parsed: FirebaseScryptHash): DecodedFirebaseHash | undefined {
  const hash = decodeBase64(parsed.hash);
  const salt = decodeBase64(parsed.salt);
  const saltSeparator = decodeBase64(parsed.saltSeparator);
  if (!hash || !salt || !saltSeparator || hash.length === 0) return undefined;
  return { memCost: parsed.memCost, rounds: parsed.rounds, salt, saltSeparator, hash };
}

/**
 * Firebase's scrypt runs with N = 2^mem_cost, r = rounds, p = 1; scrypt itself needs N ≥ 2 and
 * N < 2^(16·r), and HASH_LIMITS bound both.
 */
function checkFirebaseScryptParams(memCost: number, rounds: number): ParameterProblem | undefined {
  if (memCost < 1) return belowMinimum('mem_cost', memCost, 1);
  if (rounds < 1) return belowMinimum('rounds', rounds, 1);
  const limits = HASH_LIMITS.firebaseScrypt;
  if (memCost > limits.maxMemCost) return aboveLimit('mem_cost', memCost, limits.maxMemCost);
  if (rounds > limits.maxRounds) return aboveLimit('rounds', rounds, limits.maxRounds);
  if (memCost >= 16 * rounds) return unsupported(`mem_cost ${memCost} needs rounds above ${Math.floor(memCost / 16)}`);
  return undefined;
}

/**
 * Firebase's modified scrypt: derive 64 bytes with scrypt(password, salt ‖ saltSeparator,
 * N = 2^memCost, r = rounds, p = 1), use the first 32 as an AES-256-CTR key (all-zero IV) to
 * encrypt the project's signer key, and compare that ciphertext with the stored hash.
 *
 * Stored form: `$f_scrypt$<hash>$<salt>$m=…$r=…$s=…` as imported.
 */
export const firebaseScryptForm = defineForm<DecodedFirebaseHash>({
  legacy: false,
  claims: (stored) => stored.startsWith('$f_scrypt$'),
  parse: decodeFirebaseScryptHash,
  check: ({ memCost, rounds }) => checkFirebaseScryptParams(memCost, rounds),
});

export const verifyFirebaseScrypt: Verify<DecodedFirebaseHash> = async (
  plain,
  parsed,
  options,
): Promise<VerifyResult> => {
  const signerKey = options.firebaseSignerKey?.trim();
  if (!signerKey) return MISSING_FIREBASE_SIGNER_KEY;
  let ciphertext: Buffer;
  try {
    const derived = await scryptKey(Buffer.from(plain, 'utf8'), Buffer.concat([parsed.salt, parsed.saltSeparator]), {
      logN: parsed.memCost,
      r: parsed.rounds,
      p: 1,
      keyLength: DERIVED_KEY_BYTES,
    });
    const cipher = createCipheriv('aes-256-ctr', derived.subarray(0, AES_KEY_BYTES), ZERO_IV);
    ciphertext = Buffer.concat([cipher.update(Buffer.from(signerKey, 'base64')), cipher.final()]);
  } catch {
    throw new PasswordHashingError('firebase scrypt verification failed');
  }
  return compareDigests(ciphertext, parsed.hash);
};
