/**
 * The TOTP routes' inputs, read in the reference core's order with its messages: every field is
 * parsed first (`Field name '<f>' is invalid in JSON input`), then the emptiness and range checks.
 * This core's own limits come last: ids longer than anything can be stored under
 * (functions/shared/id-limits.ts) and a skew above {@link MAX_SKEW}.
 */
import { BadRequestError } from '#functions/shared/errors.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { optionalString, requiredInt, requiredString } from '#functions/shared/input.js';
import { checkUserIdLength } from '../metadata/user-id.js';
import { MAX_SKEW } from './codes.js';

type Body = Readonly<Record<string, unknown>>;

const nonEmpty = (value: string, field: string) => {
  if (value === '') throw new BadRequestError(`${field} cannot be empty`);
};

/**
 * The required string `fields`, each parsed in order first, then those of `nonEmptyFields` checked
 * in order (`<field> cannot be empty`).
 */
function requiredStrings<F extends string>(
  body: Body,
  fields: readonly F[],
  nonEmptyFields: readonly NoInfer<F>[],
): { readonly [K in F]: string } {
  const values = {} as Record<F, string>;
  for (const field of fields) values[field] = requiredString(body, field);
  for (const field of nonEmptyFields) nonEmpty(values[field], field);
  return values;
}

export interface CreateDeviceInput {
  readonly userId: string;
  /** Absent: the core names it `TOTP Device <n>`. */
  readonly deviceName?: string;
  readonly skew: number;
  readonly period: number;
}

/** `POST /recipe/totp/device` `{userId, deviceName?, skew, period}`. */
export function parseCreateDevice(body: Body): CreateDeviceInput {
  const userId = requiredString(body, 'userId');
  const deviceName = optionalString(body, 'deviceName');
  const skew = requiredInt(body, 'skew');
  const period = requiredInt(body, 'period');
  nonEmpty(userId, 'userId');
  if (deviceName !== undefined) nonEmpty(deviceName, 'deviceName');
  if (skew < 0) throw new BadRequestError('skew must be >= 0');
  if (period <= 0) throw new BadRequestError('period must be > 0');
  checkUserIdLength(userId);
  if (deviceName !== undefined) checkIdLength('totpDeviceName', deviceName, 'deviceName');
  if (skew > MAX_SKEW) throw new BadRequestError(`skew must be <= ${MAX_SKEW}`);
  return { userId, ...(deviceName !== undefined ? { deviceName } : {}), skew, period };
}

export interface DeviceInput {
  readonly userId: string;
  readonly deviceName: string;
}

/** `POST /<t>/recipe/totp/device/verify` `{userId, deviceName, totp}`. */
export function parseVerifyDevice(body: Body): DeviceInput & { readonly totp: string } {
  return requiredStrings(body, ['userId', 'deviceName', 'totp'], ['userId', 'deviceName']);
}

/** `POST /<t>/recipe/totp/verify` `{userId, totp}`. */
export function parseVerifyCode(body: Body): { readonly userId: string; readonly totp: string } {
  return requiredStrings(body, ['userId', 'totp'], ['userId']);
}

/** `POST /recipe/totp/device/remove` `{userId, deviceName}`. */
export function parseRemoveDevice(body: Body): DeviceInput {
  return requiredStrings(body, ['userId', 'deviceName'], ['userId', 'deviceName']);
}

export interface RenameDeviceInput {
  readonly userId: string;
  readonly existingDeviceName: string;
  readonly newDeviceName: string;
}

/** `PUT /recipe/totp/device` `{userId, existingDeviceName, newDeviceName}`. */
export function parseRenameDevice(body: Body): RenameDeviceInput {
  const fields = ['userId', 'existingDeviceName', 'newDeviceName'] as const;
  const input = requiredStrings(body, fields, fields);
  checkIdLength('totpDeviceName', input.newDeviceName, 'newDeviceName');
  return input;
}
