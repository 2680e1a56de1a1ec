/**
 * Checking a code against its device, with the reference's attempt accounting (docs/passwordless.md
 * "The attempt limit and the lifetime"): `POST /<t>/recipe/signinup/code/check` here, and the
 * first half of `…/code/consume` (functions/domain/passwordless/sign-in-up.ts).
 */
import { BadRequestError } from '#functions/shared/errors.js';
import { READ_AGAIN, reread } from '#functions/shared/rereads.js';
import { enabledTenant, type PasswordlessDeps, type PasswordlessTarget, RESTART_FLOW, rounds } from './deps.js';
import { deviceJson, deviceOfDeviceId, deviceOfPreAuthSessionId, removeDevicesOfContacts } from './devices.js';
import {
  type DeviceWithCodes,
  decodeBase64,
  isExpired,
  linkCodeHashOf,
  linkCodeWithHash,
  type PasswordlessDevice,
  saltOf,
  type TenantRef,
} from './model.js';
import type { CodeInput } from './requests.js';

export type CodeFailure =
  | typeof RESTART_FLOW
  | {
      status: 'INCORRECT_USER_INPUT_CODE_ERROR' | 'EXPIRED_USER_INPUT_CODE_ERROR';
      failedCodeInputAttemptCount: number;
      maximumCodeInputAttempts: number;
    };

/**
 * The device and the stored hash a code input names. A link code names its device through the
 * `preAuthSessionId` given with it; a user input code through the `deviceId` (which must hash to
 * the `preAuthSessionId`: 400 otherwise).
 */
async function locate(
  deps: PasswordlessDeps,
  tenant: TenantRef,
  input: CodeInput,
): Promise<{ deviceIdHash: string; linkCodeHash: string; found: DeviceWithCodes } | typeof RESTART_FLOW> {
  const claimedHash = input.preAuthSessionId.replaceAll('=', '');
  if ('linkCode' in input) {
    const linkCode = decodeBase64(input.linkCode, 'url');
    if (!linkCode) throw new BadRequestError('Input encoding error in linkCode');
    const linkCodeHash = linkCodeHashOf(linkCode);
    const found = await deviceOfPreAuthSessionId(deps.store, tenant, claimedHash);
    const code = found?.codes.find((c) => c.linkCodeHash === linkCodeHash);
    if (!found || !code || isExpired(code, deps.now(), deps.settings)) return RESTART_FLOW;
    return { deviceIdHash: claimedHash, linkCodeHash, found };
  }
  const { deviceId, deviceIdHash, found } = await deviceOfDeviceId(deps.store, tenant, input.deviceId);
  if (!found) return RESTART_FLOW;
  const { linkCodeHash } = linkCodeWithHash(deviceId, saltOf(found.device), input.userInputCode);
  if (deviceIdHash !== claimedHash) throw new BadRequestError("preAuthSessionId and deviceId doesn't match");
  return { deviceIdHash, linkCodeHash, found };
}

/**
 * Checks a code against its device: a device that has used up its attempts is removed
 * (`RESTART_FLOW_ERROR`); a wrong or expired user input code counts one more failed attempt
 * (`INCORRECT_…` / `EXPIRED_USER_INPUT_CODE_ERROR` with the new count), or removes the device when
 * that count reaches the limit (`RESTART_FLOW_ERROR`); a wrong or expired link code is
 * `RESTART_FLOW_ERROR`. With `consume`, a right code is consumed by one conditional write (the
 * device and the code are deleted only if both are still there; a concurrent consume that lost
 * reads again and finds the device gone), then the other devices of the same email or phone
 * number are removed. Every decision is a conditional write; when one fails, the device is read
 * again and the decision retaken.
 */
export async function verifyCode(
  deps: PasswordlessDeps,
  tenant: TenantRef,
  input: CodeInput,
  consume: boolean,
): Promise<{ status: 'OK'; device: PasswordlessDevice } | CodeFailure> {
  const located = await locate(deps, tenant, input);
  if ('status' in located) return located;
  const { deviceIdHash, linkCodeHash } = located;
  const max = deps.settings.maxCodeInputAttempts;
  return reread(rounds('the device kept changing while a code was checked'), async (round) => {
    const found = round === 0 ? located.found : await deps.store.getDevice(tenant, deviceIdHash);
    if (!found) return RESTART_FLOW;
    const { device } = found;
    if (device.failedAttempts >= max) {
      // Only when the limit was lowered after the attempts were counted.
      await deps.store.removeDevice(tenant, deviceIdHash);
      return RESTART_FLOW;
    }
    const code = found.codes.find((c) => c.linkCodeHash === linkCodeHash);
    if (!code || isExpired(code, deps.now(), deps.settings)) {
      if ('linkCode' in input) return RESTART_FLOW;
      const count = device.failedAttempts + 1;
      if (count >= max) {
        await deps.store.removeDevice(tenant, deviceIdHash);
        return RESTART_FLOW;
      }
      if (!(await deps.store.recordFailedAttempt(tenant, deviceIdHash, device.failedAttempts))) return READ_AGAIN;
      return {
        status: code ? ('EXPIRED_USER_INPUT_CODE_ERROR' as const) : ('INCORRECT_USER_INPUT_CODE_ERROR' as const),
        failedCodeInputAttemptCount: count,
        maximumCodeInputAttempts: max,
      };
    }
    if (consume) {
      if (!(await deps.store.consume(tenant, deviceIdHash, linkCodeHash))) return READ_AGAIN;
      await removeDevicesOfContacts(deps.store, tenant, device);
    }
    return { status: 'OK' as const, device };
  });
}

/** `POST /<t>/recipe/signinup/code/check`: whether the code is right, without consuming it (wrong codes still count). */
export async function checkCode(deps: PasswordlessDeps, target: PasswordlessTarget, input: CodeInput) {
  const result = await verifyCode(deps, enabledTenant(target), input, false);
  return result.status === 'OK' ? { status: 'OK' as const, consumedDevice: deviceJson(result.device) } : result;
}
