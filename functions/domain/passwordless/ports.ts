/**
 * What the passwordless use cases need from storage (functions/storage/passwordless-store.ts).
 * Every write that decides something is one conditional write; the store answers whether its
 * condition held, never a half-done state.
 */
import type { DeviceWithCodes, PasswordlessCode, PasswordlessDevice, TenantRef } from './model.js';

export interface PasswordlessStore {
  /**
   * A new device with its first code, both written or neither. False when an item of either was
   * already there (a device id or code id reused: the caller draws new ones). `expiresAt`: epoch
   * ms after which storage may drop both (DynamoDB's TTL).
   */
  createDevice(
    tenant: TenantRef,
    device: PasswordlessDevice,
    code: PasswordlessCode,
    expiresAt: number,
  ): Promise<boolean>;
  /**
   * Another code for an existing device (a resend), conditional on the device still being there
   * and holding no code of the same link code hash; the device's own expiry moves to `expiresAt`
   * when that is later.
   */
  addCode(tenant: TenantRef, code: PasswordlessCode, expiresAt: number): Promise<'OK' | 'UNKNOWN_DEVICE' | 'DUPLICATE'>;
  /** A device with its codes (consistent read); undefined when there is no such device. */
  getDevice(tenant: TenantRef, deviceIdHash: string): Promise<DeviceWithCodes | undefined>;
  /** The devices started for an email / a phone number in the tenant, with their codes. */
  devicesByEmail(tenant: TenantRef, email: string): Promise<DeviceWithCodes[]>;
  devicesByPhoneNumber(tenant: TenantRef, phoneNumber: string): Promise<DeviceWithCodes[]>;
  /** The code of this id in the tenant, if any. */
  codeById(tenant: TenantRef, codeId: string): Promise<PasswordlessCode | undefined>;
  /**
   * One more wrong code: `failedAttempts` goes from `seen` to `seen + 1`. False (nothing written)
   * when the device is gone or its count is no longer `seen` (another attempt came first).
   */
  recordFailedAttempt(tenant: TenantRef, deviceIdHash: string, seen: number): Promise<boolean>;
  /**
   * THE write that consumes a code: deletes the device and the code of this link code hash, on
   * condition that both are still there. Of concurrent consumes of one device exactly one gets
   * true; the others (and any consume after a revocation) get false and nothing is written. The
   * device's other codes are deleted afterwards.
   */
  consume(tenant: TenantRef, deviceIdHash: string, linkCodeHash: string): Promise<boolean>;
  /** Deletes a device and all its codes (nothing to do when it is gone). */
  removeDevice(tenant: TenantRef, deviceIdHash: string): Promise<void>;
  /** Deletes one code of a device (its device stays). */
  removeCode(tenant: TenantRef, code: PasswordlessCode): Promise<void>;
}
