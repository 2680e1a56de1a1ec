/**
 * Passwordless sign-in-up: the records the core keeps and how its codes are derived (see
 * docs/passwordless.md). Pure data and computation (`node:crypto` only).
 *
 * A *device* is one sign-in attempt started for an email or a phone number: the client holds its
 * `deviceId` (32 random bytes, standard Base64), the core keeps only the id's SHA-256
 * (`deviceIdHash`, unpadded URL-safe Base64 — the `preAuthSessionId` of the API), a random
 * `linkCodeSalt` and the count of wrong codes. Each *code* of a device is the pair the user
 * receives: a `userInputCode` (six digits by default) and a `linkCode` for the magic link, where
 *
 *   linkCode     = HMAC-SHA-256(key = deviceId bytes ‖ linkCodeSalt bytes, message = userInputCode)
 *   linkCodeHash = SHA-256(linkCode bytes), URL-safe Base64 with padding
 *
 * and the core keeps only `linkCodeHash`, the code's id and its creation time. Neither the
 * `userInputCode`, the `linkCode` nor the `deviceId` is stored: a reader of the table cannot
 * compute a code, and a client holding the `deviceId` cannot compute a `linkCode` without the
 * salt (so the attempt limit on user input codes cannot be sidestepped through links).
 */
import { createHash, createHmac } from 'node:crypto';

export interface PasswordlessDevice {
  /** SHA-256 of the device id: the API's `preAuthSessionId`. */
  readonly deviceIdHash: string;
  /** Exactly one of email and phoneNumber is set (normalised). */
  readonly email?: string;
  readonly phoneNumber?: string;
  /** Standard Base64 of 32 random bytes. */
  readonly linkCodeSalt: string;
  /** Wrong user input codes (and expired ones) entered for this device so far. */
  readonly failedAttempts: number;
}

export interface PasswordlessCode {
  /** A UUID the API hands out (to revoke the code by). */
  readonly codeId: string;
  readonly deviceIdHash: string;
  readonly linkCodeHash: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
}

export interface DeviceWithCodes {
  readonly device: PasswordlessDevice;
  /** Oldest first. */
  readonly codes: readonly PasswordlessCode[];
}

/** The tenant a device belongs to: devices are per tenant, as users' account infos are. */
export interface TenantRef {
  readonly appId: string;
  readonly tenantId: string;
}

/** The tenant's settings that govern codes (`passwordless_code_lifetime`, `passwordless_max_code_input_attempts`). */
export interface PasswordlessSettings {
  readonly codeLifetimeMs: number;
  readonly maxCodeInputAttempts: number;
}

/** Bytes of a device id and of a link code salt. */
export const DEVICE_ID_BYTES = 32;
/** Digits of a generated user input code. */
export const USER_INPUT_CODE_DIGITS = 6;

/**
 * Base64 as Java's decoders read it (what the reference accepts): only the alphabet's characters,
 * padding optional but, when present, complete and only at the end; a final unit of one character
 * is refused. Undefined when the text is not such Base64.
 */
export function decodeBase64(text: string, alphabet: 'standard' | 'url'): Buffer | undefined {
  const shape = alphabet === 'standard' ? /^([A-Za-z0-9+/]*)(=*)$/ : /^([A-Za-z0-9_-]*)(=*)$/;
  const match = shape.exec(text);
  if (!match) return undefined;
  const body = match[1] as string;
  const padding = (match[2] as string).length;
  const remainder = body.length % 4;
  if (remainder === 1) return undefined;
  if (padding > 0 && (remainder === 0 || padding !== 4 - remainder)) return undefined;
  return Buffer.from(body, alphabet === 'standard' ? 'base64' : 'base64url');
}

const urlSafe = (bytes: Buffer) => bytes.toString('base64url');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest();

/** The `preAuthSessionId` of a device id: unpadded URL-safe Base64 of its SHA-256 (43 characters). */
export function deviceIdHashOf(deviceId: Buffer): string {
  return urlSafe(sha256(deviceId));
}

/** What a `deviceIdHash` looks like; anything else cannot name a device. */
export const DEVICE_ID_HASH_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The link code of a user input code on a device (unpadded URL-safe Base64). */
export function linkCodeOf(deviceId: Buffer, linkCodeSalt: Buffer, userInputCode: string): string {
  return urlSafe(
    createHmac('sha256', Buffer.concat([deviceId, linkCodeSalt]))
      .update(userInputCode, 'utf8')
      .digest(),
  );
}

/** What the core stores of a link code: URL-safe Base64 of its SHA-256, with padding (44 characters). */
export function linkCodeHashOf(linkCode: Buffer): string {
  return sha256(linkCode).toString('base64url').padEnd(44, '=');
}

/** The link code of a user input code on a device, and what the core stores of it. */
export function linkCodeWithHash(deviceId: Buffer, linkCodeSalt: Buffer, userInputCode: string) {
  const linkCode = linkCodeOf(deviceId, linkCodeSalt, userInputCode);
  return { linkCode, linkCodeHash: linkCodeHashOf(Buffer.from(linkCode, 'base64url')) };
}

/** A device's link code salt as bytes (stored as standard Base64 by the core itself). */
export function saltOf(device: PasswordlessDevice): Buffer {
  return decodeBase64(device.linkCodeSalt, 'standard') as Buffer;
}

/** The email or the phone number a device was started for (a login method's, a request's). */
export type Contact = Pick<PasswordlessDevice, 'email' | 'phoneNumber'>;

/** The contact of anything carrying one, with its absent field left out (not set to undefined). */
export function contactOf(from: {
  readonly email?: string | undefined;
  readonly phoneNumber?: string | undefined;
}): Contact {
  return {
    ...(from.email !== undefined ? { email: from.email } : {}),
    ...(from.phoneNumber !== undefined ? { phoneNumber: from.phoneNumber } : {}),
  };
}

/** Whether a code is past its lifetime at `now` (the reference: created before now − lifetime). */
export function isExpired(code: PasswordlessCode, now: number, settings: PasswordlessSettings): boolean {
  return code.createdAt < now - settings.codeLifetimeMs;
}
