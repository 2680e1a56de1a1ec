/**
 * Passwordless use cases behind `/<tenant>/recipe/signinup/code…` (supertokens-node's
 * `Passwordless` recipe): create and resend codes, check and consume them, list and revoke them.
 * The reference behaviour they follow, and where this core differs, is in docs/passwordless.md.
 * Pure: storage, the clock and randomness arrive through {@link PasswordlessDeps}.
 */
import { legacyRecipeEnabled } from '#functions/domain/multitenancy/factors.js';
import type { TenantRecord } from '#functions/domain/multitenancy/tenant.js';
import type { UsersDeps } from '#functions/domain/users/deps.js';
import {
  externalIdOf,
  type LoginMethodRecord,
  newRecipeUser,
  toUserJson,
  type UserJson,
  type UserRecord,
} from '#functions/domain/users/model.js';
import { writePlan } from '#functions/domain/users/write.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { BadRequestError, ForbiddenError } from '#functions/shared/errors.js';
import {
  DEVICE_ID_BYTES,
  DEVICE_ID_HASH_SHAPE,
  type DeviceWithCodes,
  decodeBase64,
  deviceIdHashOf,
  isExpired,
  linkCodeHashOf,
  linkCodeOf,
  type PasswordlessCode,
  type PasswordlessDevice,
  type PasswordlessSettings,
  type TenantRef,
  USER_INPUT_CODE_DIGITS,
} from './model.js';
import type { PasswordlessStore } from './ports.js';
import {
  type CodeInput,
  type CreateCodeInput,
  type ListCodesInput,
  type RemoveCodeInput,
  type RemoveCodesInput,
  storableContact,
} from './requests.js';

export interface PasswordlessDeps {
  readonly store: PasswordlessStore;
  /** The request's tenant settings (`passwordless_code_lifetime`, `passwordless_max_code_input_attempts`). */
  readonly settings: PasswordlessSettings;
  readonly now: () => number;
  /** A fresh UUID (code ids). */
  readonly newId: () => string;
  /** Cryptographically random bytes (device ids, link code salts). */
  readonly randomBytes: (size: number) => Buffer;
  /** A cryptographically random digit, 0 … 9, uniformly (generated user input codes). */
  readonly randomDigit: () => number;
}

/** The tenant a request names, with what decides whether passwordless sign-in is allowed there. */
export interface PasswordlessTarget extends TenantRef {
  /** The tenant's record (its login-method switches), when it exists. */
  readonly tenant: TenantRecord | undefined;
  readonly cdiVersion: string;
}

const RESTART_FLOW = { status: 'RESTART_FLOW_ERROR' } as const;
/** Rounds of read-decide-write before a use case gives up on a device that keeps changing under it. */
const MAX_ROUNDS = 10;

/**
 * The reference's check before creating, checking or consuming a code: from CDI 5.1 passwordless
 * is always allowed; before, the tenant's legacy switch and first factors decide (403 otherwise).
 */
function assertPasswordlessEnabled(target: PasswordlessTarget): void {
  if (cdiAtLeast(target.cdiVersion, '5.1')) return;
  const tenant = target.tenant;
  const enabled =
    tenant !== undefined &&
    legacyRecipeEnabled(
      {
        emailPasswordEnabled: tenant.emailPasswordEnabled,
        thirdPartyEnabled: tenant.thirdPartyEnabled,
        passwordlessEnabled: tenant.passwordlessEnabled,
        firstFactors: tenant.firstFactors === null ? null : [...tenant.firstFactors],
        requiredSecondaryFactors:
          tenant.requiredSecondaryFactors === null ? null : [...tenant.requiredSecondaryFactors],
      },
      'passwordless',
      cdiAtLeast(target.cdiVersion, '5.0'),
    );
  if (!enabled) throw new ForbiddenError('Passwordless login not enabled for tenant');
}

function decodeDeviceId(deviceId: string): Buffer {
  const bytes = decodeBase64(deviceId, 'standard');
  if (!bytes) throw new BadRequestError('Input encoding error in deviceId');
  return bytes;
}

const ref = (target: TenantRef): TenantRef => ({ appId: target.appId, tenantId: target.tenantId });

// ------------------------------------------------------------------------------------------------
// Creating codes

function generateUserInputCode(deps: PasswordlessDeps): string {
  return Array.from({ length: USER_INPUT_CODE_DIGITS }, () => String(deps.randomDigit())).join('');
}

/** A code of a device, derived as docs/passwordless.md describes: what the client gets, and what is stored. */
function deriveCode(deps: PasswordlessDeps, deviceId: Buffer, salt: Buffer, userInputCode: string, now: number) {
  const linkCode = linkCodeOf(deviceId, salt, userInputCode);
  const code: PasswordlessCode = {
    codeId: deps.newId(),
    deviceIdHash: deviceIdHashOf(deviceId),
    linkCodeHash: linkCodeHashOf(Buffer.from(linkCode, 'base64url')),
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
  assertPasswordlessEnabled(target);
  const tenant = ref(target);
  const now = deps.now();
  const expiresAt = now + deps.settings.codeLifetimeMs;
  if (input.deviceId === undefined) {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const deviceId = deps.randomBytes(DEVICE_ID_BYTES);
      const salt = deps.randomBytes(DEVICE_ID_BYTES);
      const { code, answer } = deriveCode(
        deps,
        deviceId,
        salt,
        input.userInputCode ?? generateUserInputCode(deps),
        now,
      );
      const device: PasswordlessDevice = {
        deviceIdHash: code.deviceIdHash,
        ...(input.email !== undefined ? { email: input.email } : {}),
        ...(input.phoneNumber !== undefined ? { phoneNumber: input.phoneNumber } : {}),
        linkCodeSalt: salt.toString('base64'),
        failedAttempts: 0,
      };
      if (await deps.store.createDevice(tenant, device, code, expiresAt)) return answer;
    }
    throw new Error('passwordless: no fresh device id after repeated attempts');
  }
  const deviceId = decodeDeviceId(input.deviceId);
  const found = await deps.store.getDevice(tenant, deviceIdHashOf(deviceId));
  if (!found) return RESTART_FLOW;
  const salt = decodeBase64(found.device.linkCodeSalt, 'standard') as Buffer;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { code, answer } = deriveCode(deps, deviceId, salt, input.userInputCode ?? generateUserInputCode(deps), now);
    const added = await deps.store.addCode(tenant, code, expiresAt);
    if (added === 'OK') return answer;
    if (added === 'UNKNOWN_DEVICE') return RESTART_FLOW;
    // The same link code hash again: always so for a given code, by chance for a generated one.
    if (input.userInputCode !== undefined) return { status: 'USER_INPUT_CODE_ALREADY_USED_ERROR' };
  }
  throw new Error('passwordless: no fresh user input code after repeated attempts');
}

// ------------------------------------------------------------------------------------------------
// Checking and consuming codes

type CodeFailure =
  | typeof RESTART_FLOW
  | {
      status: 'INCORRECT_USER_INPUT_CODE_ERROR' | 'EXPIRED_USER_INPUT_CODE_ERROR';
      failedCodeInputAttemptCount: number;
      maximumCodeInputAttempts: number;
    };

type Verified = { status: 'OK'; device: PasswordlessDevice } | CodeFailure;

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
    const found = DEVICE_ID_HASH_SHAPE.test(claimedHash) ? await deps.store.getDevice(tenant, claimedHash) : undefined;
    const code = found?.codes.find((c) => c.linkCodeHash === linkCodeHash);
    if (!found || !code || isExpired(code, deps.now(), deps.settings)) return RESTART_FLOW;
    return { deviceIdHash: claimedHash, linkCodeHash, found };
  }
  const deviceId = decodeDeviceId(input.deviceId);
  const deviceIdHash = deviceIdHashOf(deviceId);
  const found = await deps.store.getDevice(tenant, deviceIdHash);
  if (!found) return RESTART_FLOW;
  const salt = decodeBase64(found.device.linkCodeSalt, 'standard') as Buffer;
  const linkCodeHash = linkCodeHashOf(Buffer.from(linkCodeOf(deviceId, salt, input.userInputCode), 'base64url'));
  if (deviceIdHash !== claimedHash) throw new BadRequestError("preAuthSessionId and deviceId doesn't match");
  return { deviceIdHash, linkCodeHash, found };
}

/**
 * Checks a code against its device, with the reference's attempt accounting: a device that has
 * used up its attempts is removed (`RESTART_FLOW_ERROR`); a wrong or expired user input code counts
 * one more failed attempt (`INCORRECT_…` / `EXPIRED_USER_INPUT_CODE_ERROR` with the new count), or
 * removes the device when that count reaches the limit (`RESTART_FLOW_ERROR`); a wrong or expired
 * link code is `RESTART_FLOW_ERROR`. With `consume`, a right code is consumed by one conditional
 * write (the device and the code are deleted only if both are still there; a concurrent consume
 * that lost reads again and finds the device gone), then the other devices of the same email or
 * phone number are removed. Every decision is a conditional write; when one fails, the device is
 * read again and the decision retaken.
 */
async function verify(
  deps: PasswordlessDeps,
  tenant: TenantRef,
  input: CodeInput,
  consume: boolean,
): Promise<Verified> {
  const located = await locate(deps, tenant, input);
  if ('status' in located) return located;
  const { deviceIdHash, linkCodeHash } = located;
  const max = deps.settings.maxCodeInputAttempts;
  let found: DeviceWithCodes | undefined = located.found;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (round > 0) found = await deps.store.getDevice(tenant, deviceIdHash);
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
      if (!(await deps.store.recordFailedAttempt(tenant, deviceIdHash, device.failedAttempts))) continue;
      return {
        status: code ? 'EXPIRED_USER_INPUT_CODE_ERROR' : 'INCORRECT_USER_INPUT_CODE_ERROR',
        failedCodeInputAttemptCount: count,
        maximumCodeInputAttempts: max,
      };
    }
    if (consume) {
      if (!(await deps.store.consume(tenant, deviceIdHash, linkCodeHash))) continue;
      await removeDevicesOfContact(deps.store, tenant, device);
    }
    return { status: 'OK', device };
  }
  throw new Error('passwordless: the device kept changing while a code was checked');
}

/** Removes every device of the tenant started for this device's email or phone number. */
async function removeDevicesOfContact(
  store: PasswordlessStore,
  tenant: TenantRef,
  contact: { readonly email?: string | undefined; readonly phoneNumber?: string | undefined },
): Promise<void> {
  if (!storableContact(contact)) return;
  const devices =
    contact.email !== undefined
      ? await store.devicesByEmail(tenant, contact.email)
      : contact.phoneNumber !== undefined
        ? await store.devicesByPhoneNumber(tenant, contact.phoneNumber)
        : [];
  for (const { device } of devices) await store.removeDevice(tenant, device.deviceIdHash);
}

/** The device as the API shows it (`consumedDevice`, and each device of a listing). */
function deviceJson(device: PasswordlessDevice) {
  return {
    preAuthSessionId: device.deviceIdHash,
    failedCodeInputAttemptCount: device.failedAttempts,
    ...(device.email !== undefined ? { email: device.email } : {}),
    ...(device.phoneNumber !== undefined ? { phoneNumber: device.phoneNumber } : {}),
  };
}

/** `POST /<t>/recipe/signinup/code/check`: whether the code is right, without consuming it (wrong codes still count). */
export async function checkCode(deps: PasswordlessDeps, target: PasswordlessTarget, input: CodeInput) {
  assertPasswordlessEnabled(target);
  const result = await verify(deps, ref(target), input, false);
  return result.status === 'OK' ? { status: 'OK' as const, consumedDevice: deviceJson(result.device) } : result;
}

export type ConsumeCodeAnswer =
  | {
      status: 'OK';
      createdNewUser: boolean;
      user: UserJson;
      recipeUserId: string;
      consumedDevice: ReturnType<typeof deviceJson>;
    }
  | CodeFailure;

/**
 * `POST /<t>/recipe/signinup/code/consume`: consumes the code (see `verify`), then signs in the
 * passwordless user of the device's email or phone number in this tenant — imported users
 * included — or signs one up: a new, non-primary recipe user created in one transaction that
 * claims the email's or phone number's uniqueness in the tenant. A sign-in marks the email
 * verified (the code reached it); a sign-up through an email starts verified.
 */
export async function consumeCode(
  deps: PasswordlessDeps,
  users: UsersDeps,
  target: PasswordlessTarget,
  input: CodeInput,
): Promise<ConsumeCodeAnswer> {
  assertPasswordlessEnabled(target);
  const tenant = ref(target);
  const verified = await verify(deps, tenant, input, true);
  if (verified.status !== 'OK') return verified;
  const { device } = verified;
  const signedIn = await signInOrUp(deps, users, tenant, device);
  if (!signedIn) return RESTART_FLOW;
  const { user, method, createdNewUser } = signedIn;
  return {
    status: 'OK',
    createdNewUser,
    user: toUserJson(user),
    recipeUserId: externalIdOf(user, method.recipeUserId),
    consumedDevice: deviceJson(device),
  };
}

/** The passwordless login method of this email or phone number in the tenant, with its user. */
async function findPasswordlessUser(
  users: UsersDeps,
  tenant: TenantRef,
  contact: Pick<PasswordlessDevice, 'email' | 'phoneNumber'>,
): Promise<{ user: UserRecord; method: LoginMethodRecord } | undefined> {
  const query = contact.email !== undefined ? { email: contact.email } : { phoneNumber: contact.phoneNumber as string };
  const [candidates = []] = await users.store.usersByAccountInfo(tenant.appId, tenant.tenantId, query);
  for (const user of candidates) {
    const method = user.loginMethods.find(
      (lm) =>
        lm.recipeId === 'passwordless' &&
        lm.tenantIds.includes(tenant.tenantId) &&
        (contact.email !== undefined ? lm.email === contact.email : lm.phoneNumber === contact.phoneNumber),
    );
    if (method) return { user, method };
  }
  return undefined;
}

/**
 * The user a consumed device signs in, created when there is none. Undefined when a user of that
 * email or phone number kept appearing and disappearing under it (the reference answers
 * `RESTART_FLOW_ERROR` when its create hits a duplicate).
 */
async function signInOrUp(
  deps: PasswordlessDeps,
  users: UsersDeps,
  tenant: TenantRef,
  device: PasswordlessDevice,
): Promise<{ user: UserRecord; method: LoginMethodRecord; createdNewUser: boolean } | undefined> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const found = await findPasswordlessUser(users, tenant, device);
    if (!found) {
      const created = newPasswordlessUser(users, tenant, device);
      const result = await writePlan(users.store, tenant.appId, { changes: [{ after: created.user }] });
      if (result.ok) return { ...created, createdNewUser: true };
      // Someone signed up the same email or phone number meanwhile (read it next round), or the
      // fresh id was taken (draw another); anything else is not this flow's to handle.
      if (result.failed.some((e) => e.kind !== 'uniqueEmail' && e.kind !== 'uniquePhone' && e.kind !== 'user')) {
        throw new Error(`passwordless sign-up write failed: ${result.failed.map((e) => e.kind).join(', ')}`);
      }
      continue;
    }
    let { user, method } = found;
    if (device.email !== undefined && !method.verified) {
      const after: UserRecord = {
        ...user,
        loginMethods: user.loginMethods.map((lm) => (lm === method ? { ...lm, verified: true } : lm)),
        version: user.version + 1,
      };
      const result = await writePlan(users.store, tenant.appId, { changes: [{ before: user, after }] });
      if (!result.ok) continue; // the user changed since it was read
      user = after;
      method = after.loginMethods.find((lm) => lm.recipeUserId === method.recipeUserId) as LoginMethodRecord;
    }
    // The user's other contact may have devices of its own: the reference removes them too.
    if (method.email !== undefined && method.email !== device.email) {
      await removeDevicesOfContact(deps.store, tenant, { email: method.email });
    }
    if (method.phoneNumber !== undefined && method.phoneNumber !== device.phoneNumber) {
      await removeDevicesOfContact(deps.store, tenant, { phoneNumber: method.phoneNumber });
    }
    return { user, method, createdNewUser: false };
  }
  return undefined;
}

function newPasswordlessUser(
  users: UsersDeps,
  tenant: TenantRef,
  device: PasswordlessDevice,
): { user: UserRecord; method: LoginMethodRecord } {
  return newRecipeUser(users.newId(), users.now(), tenant.tenantId, {
    recipeId: 'passwordless',
    // The code reached the email: it is verified (the reference, CDI ≥ 4.0). A phone number has no email.
    verified: device.email !== undefined,
    ...(device.email !== undefined ? { email: device.email } : {}),
    ...(device.phoneNumber !== undefined ? { phoneNumber: device.phoneNumber } : {}),
  });
}

// ------------------------------------------------------------------------------------------------
// Revoking and listing

/** Code ids are UUIDs; anything much longer cannot be one (and is not looked up). */
const MAX_CODE_ID_LENGTH = 128;

/**
 * `POST /<t>/recipe/signinup/code/remove`: revokes one code (by `codeId`; its device goes with it
 * when it was the device's last code) or a whole device (by `preAuthSessionId`). Always `OK`.
 */
export async function removeCode(deps: PasswordlessDeps, target: TenantRef, input: RemoveCodeInput) {
  const tenant = ref(target);
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

/** `POST /<t>/recipe/signinup/codes/remove`: revokes every device (and code) of an email or phone number. Always `OK`. */
export async function removeCodes(deps: PasswordlessDeps, target: TenantRef, input: RemoveCodesInput) {
  await removeDevicesOfContact(deps.store, ref(target), input);
  return { status: 'OK' as const };
}

/**
 * `GET /<t>/recipe/signinup/codes`: the devices of an email, a phone number, a `deviceId` or a
 * `preAuthSessionId`, each with its codes (ids and times only: a code itself is never stored).
 */
export async function listCodes(deps: PasswordlessDeps, target: TenantRef, input: ListCodesInput) {
  const tenant = ref(target);
  let devices: DeviceWithCodes[];
  if ('deviceId' in input) {
    const found = await deps.store.getDevice(tenant, deviceIdHashOf(decodeDeviceId(input.deviceId)));
    devices = found ? [found] : [];
  } else if ('preAuthSessionId' in input) {
    const found = DEVICE_ID_HASH_SHAPE.test(input.preAuthSessionId)
      ? await deps.store.getDevice(tenant, input.preAuthSessionId)
      : undefined;
    devices = found ? [found] : [];
  } else if (!storableContact(input)) {
    devices = [];
  } else if ('email' in input) {
    devices = await deps.store.devicesByEmail(tenant, input.email);
  } else {
    devices = await deps.store.devicesByPhoneNumber(tenant, input.phoneNumber);
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

/** Removes the devices of these login methods' emails and phone numbers in their tenants (after user changes). */
export async function removeDevicesOfLoginMethods(
  store: PasswordlessStore,
  appId: string,
  methods: readonly Pick<LoginMethodRecord, 'tenantIds' | 'email' | 'phoneNumber'>[],
): Promise<void> {
  for (const method of methods) {
    for (const tenantId of method.tenantIds) {
      const tenant = { appId, tenantId };
      if (method.email !== undefined) await removeDevicesOfContact(store, tenant, { email: method.email });
      if (method.phoneNumber !== undefined) {
        await removeDevicesOfContact(store, tenant, { phoneNumber: method.phoneNumber });
      }
    }
  }
}
