/**
 * The codes in flight, for the backend rather than the user: `GET /<t>/recipe/signinup/codes`
 * lists them, `…/code/remove` and `…/codes/remove` revoke them. Always `OK`.
 */
import { type PasswordlessDeps, tenantOf } from './deps.js';
import {
  deviceJson,
  deviceOfDeviceId,
  deviceOfPreAuthSessionId,
  devicesOfContact,
  removeDevicesOfContacts,
} from './devices.js';
import { DEVICE_ID_HASH_SHAPE, type DeviceWithCodes, type TenantRef } from './model.js';
import type { ListCodesInput, RemoveCodeInput, RemoveCodesInput } from './requests.js';

/** Code ids are UUIDs; anything much longer cannot be one (and is not looked up). */
const MAX_CODE_ID_LENGTH = 128;

/**
 * `POST /<t>/recipe/signinup/code/remove`: revokes one code (by `codeId`; its device goes with it
 * when it was the device's last code) or a whole device (by `preAuthSessionId`).
 */
export async function removeCode(deps: PasswordlessDeps, target: TenantRef, input: RemoveCodeInput) {
  const tenant = tenantOf(target);
  if ('codeId' in input) {
    const code =
      input.codeId.length <= MAX_CODE_ID_LENGTH ? await deps.store.codeById(tenant, input.codeId) : undefined;
    const found = code ? await deps.store.getDevice(tenant, code.deviceIdHash) : undefined;
    if (code && found?.codes.some((c) => c.codeId === code.codeId)) {
      if (found.codes.length === 1) await deps.store.removeDevice(tenant, code.deviceIdHash);
      else await deps.store.removeCode(tenant, code);
    }
  } else if (DEVICE_ID_HASH_SHAPE.test(input.preAuthSessionId)) {
    await deps.store.removeDevice(tenant, input.preAuthSessionId);
  }
  return { status: 'OK' as const };
}

/** `POST /<t>/recipe/signinup/codes/remove`: revokes every device (and code) of an email or phone number. */
export async function removeCodes(deps: PasswordlessDeps, target: TenantRef, input: RemoveCodesInput) {
  await removeDevicesOfContacts(deps.store, tenantOf(target), input);
  return { status: 'OK' as const };
}

/**
 * `GET /<t>/recipe/signinup/codes`: the devices of an email, a phone number, a `deviceId` or a
 * `preAuthSessionId`, each with its codes (ids and times only: a code itself is never stored).
 */
export async function listCodes(deps: PasswordlessDeps, target: TenantRef, input: ListCodesInput) {
  const tenant = tenantOf(target);
  let devices: DeviceWithCodes[];
  if ('deviceId' in input) {
    const { found } = await deviceOfDeviceId(deps.store, tenant, input.deviceId);
    devices = found ? [found] : [];
  } else if ('preAuthSessionId' in input) {
    const found = await deviceOfPreAuthSessionId(deps.store, tenant, input.preAuthSessionId);
    devices = found ? [found] : [];
  } else {
    devices = await devicesOfContact(deps.store, tenant, input);
  }
  return {
    status: 'OK' as const,
    devices: devices.map(({ device, codes }) => ({
      ...deviceJson(device),
      codes: codes.map((code) => ({
        codeId: code.codeId,
        timeCreated: code.createdAt,
        codeLifetime: deps.settings.codeLifetimeMs,
      })),
    })),
  };
}
