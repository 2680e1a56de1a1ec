/**
 * TOTP codes (functions/domain/totp/codes.ts): RFC 6238's and RFC 4226's published test vectors,
 * and the skew / period windows checked against an independent HMAC-SHA-1 computation.
 */
import { createHmac } from 'node:crypto';
import { base32nopad } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codeAt,
  codeMatches,
  keyOfSecret,
  MAX_SKEW,
  secretText,
  stepOf,
  usedCodeLifetimeMs,
} from '#functions/domain/totp/codes.js';

/** RFC 6238 appendix B's SHA-1 key: the ASCII of "12345678901234567890". */
const RFC_KEY = base32nopad.encode(Buffer.from('12345678901234567890', 'ascii'));

/** RFC 6238 appendix B, SHA-1 rows: time (s) → 8-digit TOTP. A 6-digit code is its last 6 digits. */
const RFC_6238_SHA1: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

/** RFC 4226 appendix D: counter → 6-digit HOTP for the same key. */
const RFC_4226 = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];

/** An independent RFC 4226 computation (node:crypto only) to check the library against. */
function reference(key: Uint8Array, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

describe('TOTP codes', () => {
  const key = keyOfSecret(RFC_KEY)!;

  it("match RFC 6238's SHA-1 test vectors (30-second steps)", () => {
    for (const [time, totp] of RFC_6238_SHA1) {
      expect(codeAt(key, stepOf(time * 1000, 30)), `T=${time}`).toBe(totp.slice(-6));
      expect(codeMatches(key, { period: 30, skew: 0 }, totp.slice(-6), time * 1000)).toBe(true);
    }
  });

  it("match RFC 4226's HOTP test vectors", () => {
    RFC_4226.forEach((code, counter) => {
      expect(codeAt(key, counter)).toBe(code);
    });
  });

  it('read base32 secrets in either case, with padding or spaces; anything else matches nothing', () => {
    for (const written of [RFC_KEY, RFC_KEY.toLowerCase(), `${RFC_KEY}====`, RFC_KEY.replace(/(.{4})/g, '$1 ')]) {
      expect(codeAt(keyOfSecret(written)!, 1)).toBe(RFC_4226[1]);
    }
    for (const bad of ['', '====', 'not base32!', '0189', '中文']) expect(keyOfSecret(bad), bad).toBeUndefined();
  });

  it('make 160-bit secrets as base32 without padding', () => {
    const bytes = Buffer.alloc(20, 7);
    const text = secretText(bytes);
    expect(text).toMatch(/^[A-Z2-7]{32}$/);
    expect(Buffer.from(base32nopad.decode(text))).toEqual(bytes);
  });

  it('accept exactly the codes of the steps within the skew (fast-check, against an independent HMAC)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 10, maxLength: 32 }),
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.integer({ min: -7, max: 7 }),
        (bytes, period, skew, now, offset) => {
          const secret = keyOfSecret(base32nopad.encode(bytes))!;
          const step = stepOf(now, period);
          const window = Array.from({ length: 2 * skew + 1 }, (_, i) => step - skew + i).filter((s) => s >= 0);
          const candidate = reference(bytes, Math.max(0, step + offset));
          const expected = window.some((s) => reference(bytes, s) === candidate);
          expect(codeMatches(secret, { period, skew }, candidate, now)).toBe(expected);
          if (Math.abs(offset) <= skew && step + offset >= 0) expect(expected).toBe(true);
        },
      ),
    );
  });

  it('never match a code that is not 6 digits, and bound the window whatever the skew', () => {
    const now = 1_700_000_000_000;
    const code = codeAt(key, stepOf(now, 30));
    expect(codeMatches(key, { period: 30, skew: 1 }, `${code}0`, now)).toBe(false);
    expect(codeMatches(key, { period: 30, skew: 1 }, code.slice(1), now)).toBe(false);
    const far = codeAt(key, stepOf(now, 30) + MAX_SKEW + 1);
    const huge = { period: 30, skew: 2_147_483_647 };
    // A code MAX_SKEW + 1 steps away is outside the bounded window (unless it collides within it).
    const inWindow = Array.from({ length: 2 * MAX_SKEW + 1 }, (_, i) => codeAt(key, stepOf(now, 30) - MAX_SKEW + i));
    expect(codeMatches(key, huge, far, now)).toBe(inWindow.includes(far));
    expect(usedCodeLifetimeMs(huge)).toBe(30 * (2 * MAX_SKEW + 1) * 1000);
    expect(usedCodeLifetimeMs({ period: 30, skew: 1 })).toBe(90_000);
  });
});
