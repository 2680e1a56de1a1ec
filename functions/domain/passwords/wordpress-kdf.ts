/**
 * WordPress ≥ 6.8's verification (its form is in phpass.ts): bcrypt (bcrypt-kdf.ts) of
 * Base64(HMAC-SHA-384(password, key `wp-sha384`)). Apart from the form, so the import checks do
 * not carry the KDF.
 */
import { createHmac } from 'node:crypto';
import { compareBcrypt } from './bcrypt-kdf.js';
import { HASH_LIMITS } from './limits.js';
import type { ParsedWordPress } from './phpass.js';
import { type VerifyResult, WRONG_PASSWORD } from './result.js';
import type { Verify } from './scheme.js';

const WORDPRESS_KEY = 'wp-sha384';

export const verifyWordPress: Verify<ParsedWordPress> = async (plain, { bcrypt }): Promise<VerifyResult> => {
  if (Buffer.byteLength(plain, 'utf8') > HASH_LIMITS.phpass.maxPasswordBytes) return WRONG_PASSWORD;
  const prehash = createHmac('sha384', WORDPRESS_KEY).update(plain, 'utf8').digest('base64');
  return compareBcrypt(prehash, bcrypt);
};
