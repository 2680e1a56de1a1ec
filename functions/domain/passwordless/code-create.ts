/**
 * `POST /<t>/recipe/signinup/code`: a new device with its first code, or another code for a
 * device (a resend). How a code is derived, and what of it is stored, is in docs/passwordless.md
 * "Codes, and what is stored".
 */
import { READ_AGAIN, reread } from '#functions/shared/rereads.js';
import { enabledTenant, type PasswordlessDeps, type PasswordlessTarget, RESTART_FLOW, rounds } from './deps.js';
import { deviceOfDeviceId } from './devices.js';
import {
  contactOf,
  DEVICE_ID_BYTES,
  deviceIdHashOf,
  linkCodeWithHash,
  type PasswordlessCode,
  type PasswordlessDevice,
  saltOf,
  USER_INPUT_CODE_DIGITS,
} from './model.js';
import type { CreateCodeInput } from './requests.js';

function generateUserInputCode(deps: PasswordlessDeps): string {
  return Array.from({ length: USER_INPUT_CODE_DIGITS }, () => String(deps.randomDigit())).join('');
}

/** A code of a device: what the client gets, and what is stored. */
function deriveCode(deps: PasswordlessDeps, deviceId: Buffer, salt: Buffer, userInputCode: string, now: number) {
  const { linkCode, linkCodeHash } = linkCodeWithHash(deviceId, salt, userInputCode);
  const code: PasswordlessCode = {
    codeId: deps.newId(),
    deviceIdHash: deviceIdHashOf(deviceId),
    linkCodeHash,
    createdAt: now,
  };
  const answer = {
    status: 'OK' as const,
    preAuthSessionId: code.deviceIdHash,
    codeId: code.codeId,
    deviceId: deviceId.toString('base64'),
    userInputCode,
    linkCode,
    timeCreated: now,
    codeLifetime: deps.settings.codeLifetimeMs,
  };
  return { code, answer };
}

export type CreateCodeAnswer =
  | ReturnType<typeof deriveCode>['answer']
  | typeof RESTART_FLOW
  | { status: 'USER_INPUT_CODE_ALREADY_USED_ERROR' };

/**
 * `POST /<t>/recipe/signinup/code`. With an email or phone number: a new device and its first
 * code, written together. With a `deviceId`: a new code for that device (a resend) —
 * `RESTART_FLOW_ERROR` when the device is gone, `USER_INPUT_CODE_ALREADY_USED_ERROR` when the
 * given `userInputCode` is one the device already has. A generated code that collides is drawn
 * again.
 */
export async function createCode(
  deps: PasswordlessDeps,
  target: PasswordlessTarget,
  input: CreateCodeInput,
): Promise<CreateCodeAnswer> {
  const tenant = enabledTenant(target);
  const now = deps.now();
  const expiresAt = now + deps.settings.codeLifetimeMs;
  const userInputCode = () => input.userInputCode ?? generateUserInputCode(deps);
  if (input.deviceId === undefined) {
    return reread(rounds('no fresh device id after repeated attempts'), async () => {
      const deviceId = deps.randomBytes(DEVICE_ID_BYTES);
      const salt = deps.randomBytes(DEVICE_ID_BYTES);
      const { code, answer } = deriveCode(deps, deviceId, salt, userInputCode(), now);
      const device: PasswordlessDevice = {
        deviceIdHash: code.deviceIdHash,
        ...contactOf(input),
        linkCodeSalt: salt.toString('base64'),
        failedAttempts: 0,
      };
      return (await deps.store.createDevice(tenant, device, code, expiresAt)) ? answer : READ_AGAIN;
    });
  }
  const { deviceId, found } = await deviceOfDeviceId(deps.store, tenant, input.deviceId);
  if (!found) return RESTART_FLOW;
  const salt = saltOf(found.device);
  return reread(rounds('no fresh user input code after repeated attempts'), async () => {
    const { code, answer } = deriveCode(deps, deviceId, salt, userInputCode(), now);
    const added = await deps.store.addCode(tenant, code, expiresAt);
    if (added === 'OK') return answer;
    if (added === 'UNKNOWN_DEVICE') return RESTART_FLOW;
    // The same link code hash again: always so for a given code, by chance for a generated one.
    if (input.userInputCode !== undefined) return { status: 'USER_INPUT_CODE_ALREADY_USED_ERROR' as const };
    return READ_AGAIN;
  });
}
