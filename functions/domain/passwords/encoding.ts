/**
 * Strict text encodings of hash parts. Node's `Buffer.from(text, 'base64')` skips characters it
 * does not know and ignores stray bits, so two different strings can decode to the same bytes;
 * these helpers accept one spelling per byte string (apart from optional padding) and refuse
 * everything else, so a hash is either read exactly or refused.
 */

const BASE64_BODY = /^[A-Za-z0-9+/]*$/;
const HEX = /^(?:[0-9a-f]{2})*$/i;

export type Padding = 'optional' | 'required' | 'forbidden';

/**
 * Decodes standard Base64 (RFC 4648 §4: `+` and `/`), with `=` padding as `padding` says, and
 * only when re-encoding the bytes gives back the same text (no ignored bits). Undefined otherwise.
 */
export function decodeBase64(text: string, padding: Padding = 'optional'): Buffer | undefined {
  const body = text.replace(/={1,2}$/, '');
  const padded = body.length !== text.length;
  if (!BASE64_BODY.test(body) || body.length % 4 === 1) return undefined;
  if (padded && (padding === 'forbidden' || text.length % 4 !== 0)) return undefined;
  if (!padded && padding === 'required' && body.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(body, 'base64');
  return bytes.toString('base64').replace(/=+$/, '') === body ? bytes : undefined;
}

/** Standard Base64 without padding (PHC strings, passlib, Kratos's PBKDF2 form). */
export function base64Unpadded(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/=+$/, '');
}

/** Standard Base64 with padding (Kratos's digest form, LDAP, ASP.NET Core Identity). */
export function base64Padded(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** Hexadecimal, either case. */
export function decodeHex(text: string): Buffer | undefined {
  return HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/**
 * A decimal integer written with 1 to `maxDigits` digits and no sign, as hash formats write
 * their parameters. Leading zeros are allowed (`i=0100` is 100); the caller checks the range.
 */
export function parseDecimal(text: string, maxDigits = 10): number | undefined {
  if (text.length === 0 || text.length > maxDigits || !/^[0-9]+$/.test(text)) return undefined;
  return Number(text);
}

/** The phpass / Drupal alphabet: `./0-9A-Za-z`, least significant 6 bits first. */
export const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * phpass's Base64 variant (also Drupal's `_password_base64_encode`): bytes are taken three at a
 * time, little-endian, and written six bits at a time from the lowest; a final group of one or
 * two bytes writes two or three characters.
 */
export function phpassBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i] as number;
    const b1 = bytes[i + 1];
    const b2 = bytes[i + 2];
    const value = b0 | ((b1 ?? 0) << 8) | ((b2 ?? 0) << 16);
    out += ITOA64[value & 0x3f];
    out += ITOA64[(value >> 6) & 0x3f];
    if (b1 === undefined) break;
    out += ITOA64[(value >> 12) & 0x3f];
    if (b2 === undefined) break;
    out += ITOA64[(value >> 18) & 0x3f];
  }
  return out;
}
