/**
 * TOTP devices as the core takes them (docs/migrating.md "The import payload"): the secret as RFC 4648 base32
 * text (upper case, no padding: what authenticator apps and the core's own devices use), verified
 * with HMAC-SHA-1 and 6 digits at the device's period, within `skew` periods either side. A source
 * device with another algorithm, another number of digits or a counter (HOTP) cannot be carried.
 * Messages never quote a secret.
 */
import { base32nopad } from '@scure/base';
import type { WireTotpDevice } from '../contract.js';

/** The longest `secretKey` the core accepts. */
const MAX_SECRET_KEY = 256;
/** The longest `deviceName` the core accepts. */
const MAX_DEVICE_NAME = 256;

/** The secret's bytes as base32 text, or undefined when it is empty or too long for the core. */
export function base32Secret(bytes: Uint8Array): string | undefined {
  if (bytes.length === 0) return undefined;
  const text = base32nopad.encode(bytes);
  return text.length > MAX_SECRET_KEY ? undefined : text;
}

/**
 * A secret given as base32 (spaces, lower case and `=` padding tolerated) in its canonical form, or
 * undefined when it is not base32 or too long for the core.
 */
export function canonicalBase32(text: string): string | undefined {
  const compact = text.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  if (compact === '' || !/^[A-Z2-7]+$/.test(compact)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = base32nopad.decode(compact);
  } catch {
    // A length no whole number of bytes gives (1, 3 or 6 characters past a group of 8).
    return undefined;
  }
  return base32Secret(bytes);
}

/**
 * Device names unique per user (the core refuses two with one name): the source's name when it has
 * one, else `fallback`; a repeated name gets ` (2)`, ` (3)`…
 */
export class DeviceNames {
  private readonly used = new Set<string>();

  constructor(private readonly fallback: string) {}

  next(name: string | undefined): string {
    const base = (name?.trim() || this.fallback).slice(0, MAX_DEVICE_NAME - 8);
    let candidate = base;
    for (let n = 2; this.used.has(candidate); n++) candidate = `${base} (${n})`;
    this.used.add(candidate);
    return candidate;
  }
}

/** A device in the payload's key order (the chunk's JSON must be the same from one run to the next). */
export function totpDevice(secretKey: string, period: number, skew: number, deviceName: string): WireTotpDevice {
  return { secretKey, period, skew, deviceName };
}

/** What a converter found about a user's second factors. */
export interface SecondFactors {
  readonly devices: WireTotpDevice[];
  /** One message per factor that cannot be carried (never quoting a secret). */
  readonly leftBehind: string[];
}

/** A label from the source, quoted in a message (cut at 60 characters; never a secret). */
export function quotedLabel(label: string | undefined): string {
  if (label === undefined || label.trim() === '') return '';
  const trimmed = label.trim();
  return ` "${trimmed.length > 60 ? `${trimmed.slice(0, 60)}…` : trimmed}"`;
}
