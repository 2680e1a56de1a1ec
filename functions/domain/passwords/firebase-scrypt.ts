import { createCipheriv, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { PasswordHashingError } from './errors.js';
import type { FirebaseScryptHash } from './format.js';
import { fromMatch, MAX_KDF_MEMORY_BYTES, UNSUPPORTED_HASH, type VerifyResult } from './result.js';

const DERIVED_KEY_BYTES = 64;
const AES_KEY_BYTES = 32;
const ZERO_IV = Buffer.alloc(16);
/** N = 2^memCost must stay a safe integer and a power of two above 1. */
const MAX_MEM_COST = 30;

function deriveKey(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // node:crypto runs scrypt on the libuv thread pool, so the event loop stays free.
    scrypt(password, salt, DERIVED_KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/**
 * Firebase's modified scrypt: derive 64 bytes with scrypt(password, salt ‖ saltSeparator,
 * N = 2^memCost, r = rounds, p = 1), use the first 32 as an AES-256-CTR key (all-zero IV) to
 * encrypt the project's signer key, and compare the Base64 of that ciphertext with the stored hash.
 */
export async function verifyFirebaseScrypt(
  plain: string,
  parsed: FirebaseScryptHash,
  signerKey: string,
): Promise<VerifyResult> {
  const { memCost, rounds } = parsed;
  if (memCost < 1 || memCost > MAX_MEM_COST || rounds < 1) return UNSUPPORTED_HASH;
  const cost = 2 ** memCost;
  // OpenSSL needs 128·r·(N + 2) bytes for V plus 128·r·p for B; allow a little slack.
  const required = 128 * rounds * (cost + 2) + 128 * rounds;
  if (required > MAX_KDF_MEMORY_BYTES) return UNSUPPORTED_HASH;
  const salt = Buffer.concat([Buffer.from(parsed.salt, 'base64'), Buffer.from(parsed.saltSeparator, 'base64')]);
  let ciphertext: Buffer;
  try {
    const derived = await deriveKey(plain, salt, { N: cost, r: rounds, p: 1, maxmem: required + 1024 * 1024 });
    const cipher = createCipheriv('aes-256-ctr', derived.subarray(0, AES_KEY_BYTES), ZERO_IV);
    ciphertext = Buffer.concat([cipher.update(Buffer.from(signerKey, 'base64')), cipher.final()]);
  } catch {
    throw new PasswordHashingError('firebase scrypt verification failed');
  }
  const computed = Buffer.from(ciphertext.toString('base64'), 'utf8');
  const expected = Buffer.from(parsed.hash, 'utf8');
  return fromMatch(computed.length === expected.length && timingSafeEqual(computed, expected));
}
