/**
 * A portable phpass hash (`$P$`, what WordPress writes) computed as phpass's HashPassword does:
 * MD5(salt ‖ password), then 2^log2 times MD5(hash ‖ password), the 16 bytes in phpass's Base64.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ITOA64, phpassBase64 } from '#functions/domain/passwords/encoding.js';

export function phpassHash(password: string, log2: number): string {
  const salt = Array.from(randomBytes(8), (b) => ITOA64[b & 0x3f]).join('');
  const secret = Buffer.from(password, 'utf8');
  let hash = createHash('md5').update(salt).update(secret).digest();
  for (let i = 2 ** log2; i > 0; i--) hash = createHash('md5').update(hash).update(secret).digest();
  return `$P$${ITOA64[log2]}${salt}${phpassBase64(hash)}`;
}
