/**
 * TOTP codes as the reference core computes them (RFC 6238 over RFC 4226): HMAC-SHA-1 of the
 * time step, 6 digits, the device's `period` in seconds; a code is accepted in the current step or
 * up to `skew` steps either side. Computed with the `otpauth` library; secrets are base32 text
 * (RFC 4648), as devices are created and imported. Pure computation (docs/totp-and-mfa.md).
 */
import { timingSafeEqual } from 'node:crypto';
import { HOTP, Secret } from 'otpauth';

/** Digits of every code (the reference does not let a device choose another length). */
const TOTP_DIGITS = 6;
/** Bytes of a secret the core generates: 160 bits, as the reference's generator makes them. */
export const SECRET_BYTES = 20;
/**
 * The most steps either side of the current one a code is checked against, whatever the device's
 * `skew` says: a device created here cannot have more, and an imported one with more is checked
 * within this window, so no request computes more than 2 × 100 + 1 codes per device.
 */
export const MAX_SKEW = 100;

/** What a device needs to check a code: its key and its time window. */
export interface CodeWindow {
  readonly period: number;
  readonly skew: number;
}

/**
 * The key a base32 secret stands for; undefined when it is not base32 (or empty), since such a
 * secret can match no code. Whitespace and `=` padding are ignored, letters in either case.
 */
export function keyOfSecret(base32: string): Secret | undefined {
  const text = base32.replace(/[\s=]/g, '').toUpperCase();
  if (text === '') return undefined;
  try {
    const secret = Secret.fromBase32(text);
    return secret.bytes.length > 0 ? secret : undefined;
  } catch {
    return undefined;
  }
}

/** A fresh secret's text (base32, upper case, no padding) from random bytes. */
export function secretText(bytes: Uint8Array): string {
  return new Secret({ buffer: Uint8Array.from(bytes).buffer }).base32;
}

/** The code of one time step (`counter` = ⌊unix time / period⌋). */
export function codeAt(key: Secret, counter: number): string {
  return HOTP.generate({ secret: key, algorithm: 'SHA1', digits: TOTP_DIGITS, counter });
}

/** The time step of `nowMs` for a period of `period` seconds. */
export const stepOf = (nowMs: number, period: number): number => Math.floor(nowMs / (period * 1000));

/** The skew a device's codes are checked with (its own, at most {@link MAX_SKEW}). */
const effectiveSkew = (window: CodeWindow): number => Math.min(window.skew, MAX_SKEW);

/**
 * Whether `code` is the device's code of the current step or of a step within its skew (compared
 * in constant time). Steps before the Unix epoch do not exist.
 */
export function codeMatches(key: Secret, window: CodeWindow, code: string, nowMs: number): boolean {
  if (code.length !== TOTP_DIGITS) return false;
  const given = Buffer.from(code, 'utf8');
  if (given.length !== TOTP_DIGITS) return false;
  const step = stepOf(nowMs, window.period);
  const skew = effectiveSkew(window);
  for (let i = -skew; i <= skew; i++) {
    if (step + i < 0) continue;
    if (timingSafeEqual(Buffer.from(codeAt(key, step + i), 'utf8'), given)) return true;
  }
  return false;
}

/**
 * How long a code accepted by this device stays refused as used: the span of every step it could
 * have been accepted in, `period × (2 × skew + 1)` seconds, as the reference keeps used codes.
 */
export const usedCodeLifetimeMs = (window: CodeWindow): number =>
  window.period * (2 * effectiveSkew(window) + 1) * 1000;
