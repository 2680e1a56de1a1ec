/**
 * Finding and removing devices, for every passwordless use case: a device by the `deviceId` the
 * client holds, by its `preAuthSessionId`, or all of an email's or phone number's; the devices of
 * a contact removed together; a device as the API shows it.
 */
import type { LoginMethodRecord } from '#functions/domain/users/model.js';
import { BadRequestError } from '#functions/shared/errors.js';
import {
  type Contact,
  contactOf,
  DEVICE_ID_HASH_SHAPE,
  type DeviceWithCodes,
  decodeBase64,
  deviceIdHashOf,
  type PasswordlessDevice,
  type TenantRef,
} from './model.js';
import type { PasswordlessStore } from './ports.js';
import { storableContact } from './requests.js';

/** The bytes of a `deviceId` the client sent (standard Base64; 400 otherwise). */
function decodeDeviceId(deviceId: string): Buffer {
  const bytes = decodeBase64(deviceId, 'standard');
  if (!bytes) throw new BadRequestError('Input encoding error in deviceId');
  return bytes;
}

/** The device of a `deviceId` the client sent, with the id's bytes and hash. */
export async function deviceOfDeviceId(store: PasswordlessStore, tenant: TenantRef, deviceId: string) {
  const bytes = decodeDeviceId(deviceId);
  const deviceIdHash = deviceIdHashOf(bytes);
  return { deviceId: bytes, deviceIdHash, found: await store.getDevice(tenant, deviceIdHash) };
}

/** The device of a `preAuthSessionId`; one that cannot be a device id's hash names none (and is not looked up). */
export async function deviceOfPreAuthSessionId(
  store: PasswordlessStore,
  tenant: TenantRef,
  preAuthSessionId: string,
): Promise<DeviceWithCodes | undefined> {
  return DEVICE_ID_HASH_SHAPE.test(preAuthSessionId) ? store.getDevice(tenant, preAuthSessionId) : undefined;
}

/** The devices of the tenant started for an email or a phone number (none for one no device can hold). */
export async function devicesOfContact(
  store: PasswordlessStore,
  tenant: TenantRef,
  contact: Contact,
): Promise<DeviceWithCodes[]> {
  if (!storableContact(contact)) return [];
  if (contact.email !== undefined) return store.devicesByEmail(tenant, contact.email);
  if (contact.phoneNumber !== undefined) return store.devicesByPhoneNumber(tenant, contact.phoneNumber);
  return [];
}

/** Removes every device of the tenant started for this email and for this phone number (either may be absent). */
export async function removeDevicesOfContacts(
  store: PasswordlessStore,
  tenant: TenantRef,
  contacts: { readonly email?: string | undefined; readonly phoneNumber?: string | undefined },
): Promise<void> {
  const devices = [
    ...(contacts.email !== undefined ? await devicesOfContact(store, tenant, { email: contacts.email }) : []),
    ...(contacts.phoneNumber !== undefined
      ? await devicesOfContact(store, tenant, { phoneNumber: contacts.phoneNumber })
      : []),
  ];
  for (const { device } of devices) await store.removeDevice(tenant, device.deviceIdHash);
}

/** Removes the devices of these login methods' emails and phone numbers in their tenants (after user changes). */
export async function removeDevicesOfLoginMethods(
  store: PasswordlessStore,
  appId: string,
  methods: readonly Pick<LoginMethodRecord, 'tenantIds' | 'email' | 'phoneNumber'>[],
): Promise<void> {
  for (const method of methods) {
    for (const tenantId of method.tenantIds) await removeDevicesOfContacts(store, { appId, tenantId }, method);
  }
}

/** The device as the API shows it (`consumedDevice`, and each device of a listing). */
export function deviceJson(device: PasswordlessDevice) {
  return {
    preAuthSessionId: device.deviceIdHash,
    failedCodeInputAttemptCount: device.failedAttempts,
    ...contactOf(device),
  };
}
