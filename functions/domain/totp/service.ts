/**
 * TOTP use cases behind `/recipe/totp/…` (supertokens-node's `TOTP` recipe): create, verify,
 * rename, remove and list devices, and verify a code against a user's verified devices, with the
 * reference core's rate limiting and used-code rule. The reference behaviour followed, and where
 * this core differs, is in docs/totp-and-mfa.md. Pure: storage, the clock and randomness arrive
 * through {@link TotpDeps}. A device's secret leaves the core once, in the answer to the request
 * that created it; it is in no log line and no other answer.
 */
import { createHash } from 'node:crypto';
import { UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { BackpressureError, CoreHttpError } from '#functions/shared/errors.js';
import { ID_LIMITS } from '#functions/shared/id-limits.js';
import { logger } from '#functions/shared/logger.js';
import { fitsUserId } from '../metadata/user-id.js';
import {
  type AttemptRecord,
  afterFailure,
  afterSuccess,
  isReplay,
  limitState,
  recordExpiry,
  type TotpLimits,
} from './attempts.js';
import { type CodeWindow, codeMatches, keyOfSecret, SECRET_BYTES, secretText, usedCodeLifetimeMs } from './codes.js';
import { defaultTotpDeviceName } from './names.js';
import type { TotpDeviceView, TotpStore } from './ports.js';
import type { CreateDeviceInput, DeviceInput, RenameDeviceInput } from './requests.js';

export type { TotpStore } from './ports.js';

/** The reference's answer when its licence lacks MFA: here, when the app's `mfa_enabled` is off. */
export const MFA_DISABLED_MESSAGE =
  'MFA feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.';

/** 402: the app has `mfa_enabled` off (creating a device, verifying a code). */
class MfaDisabledError extends CoreHttpError {
  constructor() {
    super(402, MFA_DISABLED_MESSAGE);
  }
}

export interface TotpDeps {
  readonly store: TotpStore;
  /** The request tenant's `totp_max_attempts` and `totp_rate_limit_cooldown_sec`. */
  readonly limits: TotpLimits;
  /** The app's `mfa_enabled` switch. */
  readonly mfaEnabled: boolean;
  readonly now: () => number;
  /** Cryptographically random bytes (new secrets). */
  readonly randomBytes: (size: number) => Uint8Array;
}

/**
 * Where a verification is made (in the app of the store: its user's one attempt record counts it,
 * whatever the tenant): the path's tenant (whose limits apply), the CDI version of the caller.
 */
export interface TotpTarget {
  readonly tenantId: string;
  readonly cdiVersion: string;
}

/** Rounds of read-decide-write on a user's attempt record before giving up on the contention. */
const MAX_ROUNDS = 25;
/** Longer codes are refused before anything is computed or counted (the reference's column size). */
const MAX_CODE_LENGTH = 8;

/** Whether a device of this name can exist (longer names are refused where devices are made). */
const fitsDeviceName = (name: string) => name.length <= ID_LIMITS.totpDeviceName;

function assertMfaEnabled(deps: TotpDeps): void {
  if (!deps.mfaEnabled) throw new MfaDisabledError();
}

// ------------------------------------------------------------------------------------------------
// Devices

/** → `{status:"OK", devices:[{name, period, skew, verified}]}` (empty when the id has none). */
export async function listDevices(store: TotpStore, input: { userId: string }) {
  const devices = fitsUserId(input.userId) ? await store.listTotpDevices(input.userId) : [];
  return { status: 'OK', devices };
}

/**
 * `POST /recipe/totp/device`: a new unverified device with a fresh 160-bit secret →
 * `{status:"OK", deviceName, secret}` (the only answer that ever holds a secret), or
 * `DEVICE_ALREADY_EXISTS_ERROR` when a verified device has the name. An unverified device of
 * the name is replaced. Without a name the device is `TOTP Device <n>`, n counting up from the
 * number of the user's verified devices to the first name no verified device has. 402 when the
 * app has `mfa_enabled` off. Any user id is accepted (the SDK checks the user first).
 */
export async function createDevice(deps: TotpDeps, input: CreateDeviceInput) {
  assertMfaEnabled(deps);
  const secret = secretText(deps.randomBytes(SECRET_BYTES));
  const shape = { period: input.period, skew: input.skew };
  if (input.deviceName !== undefined) {
    const created = await deps.store.createTotpDevice(input.userId, { name: input.deviceName, ...shape }, secret);
    return created === 'OK'
      ? { status: 'OK', deviceName: input.deviceName, secret }
      : { status: 'DEVICE_ALREADY_EXISTS_ERROR' };
  }
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const devices = await deps.store.listTotpDevices(input.userId);
    const verified = new Set(devices.filter((d) => d.verified).map((d) => d.name));
    let n = verified.size;
    while (verified.has(defaultTotpDeviceName(n))) n++;
    const name = defaultTotpDeviceName(n);
    if ((await deps.store.createTotpDevice(input.userId, { name, ...shape }, secret)) === 'OK') {
      return { status: 'OK', deviceName: name, secret };
    }
    // Verified meanwhile by another request: list again.
  }
  throw new BackpressureError('conflict', 'TOTP device names kept changing during creation');
}

/** `PUT /recipe/totp/device`: `OK`, `UNKNOWN_DEVICE_ERROR` or `DEVICE_ALREADY_EXISTS_ERROR`. */
export async function renameDevice(store: TotpStore, input: RenameDeviceInput) {
  if (!fitsUserId(input.userId) || !fitsDeviceName(input.existingDeviceName)) return { status: 'UNKNOWN_DEVICE_ERROR' };
  const result = await store.renameTotpDevice(input.userId, input.existingDeviceName, input.newDeviceName);
  if (result === 'OK') return { status: 'OK' };
  return { status: result === 'EXISTS' ? 'DEVICE_ALREADY_EXISTS_ERROR' : 'UNKNOWN_DEVICE_ERROR' };
}

/**
 * `POST /recipe/totp/device/remove` → `{status:"OK", didDeviceExist}`. Removing a user id's
 * last device also forgets its attempts (failures and used codes), as the reference does.
 */
export async function removeDevice(store: TotpStore, input: DeviceInput) {
  if (!fitsUserId(input.userId) || !fitsDeviceName(input.deviceName)) return { status: 'OK', didDeviceExist: false };
  const existed = await store.removeTotpDevice(input.userId, input.deviceName);
  if (existed && (await store.listTotpDevices(input.userId)).length === 0) {
    await store.removeTotpAttempts(input.userId);
  }
  return { status: 'OK', didDeviceExist: existed };
}

// ------------------------------------------------------------------------------------------------
// Verifying codes

type CheckAnswer =
  | { readonly status: 'OK' }
  | {
      readonly status: 'INVALID_TOTP_ERROR';
      readonly currentNumberOfFailedAttempts?: number;
      readonly maxNumberOfFailedAttempts?: number;
    }
  | {
      readonly status: 'LIMIT_REACHED_ERROR';
      readonly retryAfterMs: number;
      readonly currentNumberOfFailedAttempts?: number;
      readonly maxNumberOfFailedAttempts?: number;
    };

/** The counts are in the answers from CDI 5.0 on. */
function counted(target: TotpTarget, failed: number, max: number) {
  return cdiAtLeast(target.cdiVersion, '5.0')
    ? { currentNumberOfFailedAttempts: failed, maxNumberOfFailedAttempts: max }
    : {};
}

const invalid = (target: TotpTarget, failed: number, max: number): CheckAnswer => ({
  status: 'INVALID_TOTP_ERROR',
  ...counted(target, failed, max),
});

/** A device of the user with what verifying needs; the secret is opened only when asked for. */
interface Candidate extends CodeWindow {
  readonly name: string;
  readonly secret: () => Promise<string | undefined>;
}

/** The first device whose code `code` is now, if any. A secret that can never be opened matches nothing. */
async function matchingDevice(candidates: readonly Candidate[], code: string, now: number) {
  for (const candidate of candidates) {
    let secret: string | undefined;
    try {
      secret = await candidate.secret();
    } catch (error) {
      // A key the key service refuses is the operator's to fix (500), not this device's fault.
      if (!(error instanceof UnreadableSecretError) || error.reason === 'key-refused') throw error;
      logger.warn('a TOTP device secret cannot be decrypted; the device verifies no code', {
        device: candidate.name,
        reason: error.reason,
      });
      continue;
    }
    const key = secret === undefined ? undefined : keyOfSecret(secret);
    if (key && codeMatches(key, candidate, code, now)) return candidate;
  }
  return undefined;
}

const digestOf = (code: string) => createHash('sha256').update(code, 'utf8').digest('base64url');

/**
 * The reference's check-and-store of one attempt, for the user id in the app — one record for all
 * its tenants, where the reference keeps one per tenant (docs/totp-and-mfa.md "Deliberate
 * differences"): a code used in one tenant is used in all, and failures in any tenant count
 * towards the limit in every other. Judged with the target tenant's limits. Refused
 * while the user is limited (nothing counted); a code longer than 8 characters is wrong without
 * being counted; a code is right when it is a candidate's code now and was not accepted before
 * in its window. The outcome is saved with a conditional write on the record's version, so
 * concurrent attempts are counted one after another and together never pass the limit.
 */
async function checkAndCount(
  deps: TotpDeps,
  target: TotpTarget,
  userId: string,
  candidates: readonly Candidate[],
  code: string,
): Promise<CheckAnswer> {
  const { store, limits } = deps;
  const max = limits.maxAttempts;
  let match: { device: Candidate | undefined } | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { record, version } = await store.readTotpAttempts(userId);
    const now = deps.now();
    const state = limitState(record, now, limits);
    if (state.limited) {
      return { status: 'LIMIT_REACHED_ERROR', retryAfterMs: state.retryAfterMs, ...counted(target, state.failed, max) };
    }
    if (code.length > MAX_CODE_LENGTH) return invalid(target, state.failed + 1, max);
    // Which device the code belongs to does not change between rounds: computed once.
    match ??= { device: await matchingDevice(candidates, code, now) };
    const digest = digestOf(code);
    const accepted = match.device !== undefined && !isReplay(record, digest, now);
    let next: AttemptRecord;
    if (accepted && match.device) {
      next = afterSuccess(record, now, { codeDigest: digest, expiresAt: now + usedCodeLifetimeMs(match.device) });
    } else {
      next = afterFailure(record, now, limits);
    }
    if (await store.saveTotpAttempts(userId, next, version, recordExpiry(next, limits))) {
      return accepted ? { status: 'OK' } : invalid(target, state.failed + 1, max);
    }
    // Another attempt of this user was counted first: read the record again.
  }
  throw new BackpressureError('conflict', 'TOTP attempts of one user kept conflicting');
}

const candidateOf = (store: TotpStore, userId: string, device: TotpDeviceView): Candidate => ({
  name: device.name,
  period: device.period,
  skew: device.skew,
  secret: () => store.openTotpDeviceSecret(userId, device.name),
});

/**
 * `POST /<t>/recipe/totp/device/verify` → `{status:"OK", wasAlreadyVerified}`, or
 * `UNKNOWN_DEVICE_ERROR`, `INVALID_TOTP_ERROR`, `LIMIT_REACHED_ERROR` (the counts from CDI 5.0).
 * A verified device answers `wasAlreadyVerified: true` without looking at the code; otherwise the
 * code is checked against that device alone and counted like any other attempt.
 */
export async function verifyDevice(deps: TotpDeps, target: TotpTarget, input: DeviceInput & { readonly totp: string }) {
  if (!fitsUserId(input.userId)) return { status: 'UNKNOWN_DEVICE_ERROR' };
  const devices = await deps.store.listTotpDevices(input.userId);
  const device = devices.find((d) => d.name === input.deviceName);
  if (!device) return { status: 'UNKNOWN_DEVICE_ERROR' };
  if (device.verified) return { status: 'OK', wasAlreadyVerified: true };
  const answer = await checkAndCount(
    deps,
    target,
    input.userId,
    [candidateOf(deps.store, input.userId, device)],
    input.totp,
  );
  if (answer.status !== 'OK') return answer;
  // Removed or renamed meanwhile: the code was right, but there is no device left to verify.
  if (!(await deps.store.markTotpDeviceVerified(input.userId, input.deviceName))) {
    return { status: 'UNKNOWN_DEVICE_ERROR' };
  }
  return { status: 'OK', wasAlreadyVerified: false };
}

/**
 * `POST /<t>/recipe/totp/verify` → `{status:"OK"}`, or `UNKNOWN_USER_ID_ERROR` (the user id has
 * no device at all), `INVALID_TOTP_ERROR`, `LIMIT_REACHED_ERROR`. The code is checked against
 * the user's verified devices (none verified: every code is wrong, and counted). 402 when the
 * app has `mfa_enabled` off.
 */
export async function verifyCode(deps: TotpDeps, target: TotpTarget, input: { userId: string; totp: string }) {
  assertMfaEnabled(deps);
  if (!fitsUserId(input.userId)) return { status: 'UNKNOWN_USER_ID_ERROR' };
  const devices = await deps.store.listTotpDevices(input.userId);
  if (devices.length === 0) return { status: 'UNKNOWN_USER_ID_ERROR' };
  const candidates = devices.filter((d) => d.verified).map((d) => candidateOf(deps.store, input.userId, d));
  return checkAndCount(deps, target, input.userId, candidates, input.totp);
}
