/**
 * The TOTP routes' inputs, read in the reference core's order with its messages: every field is
 * parsed first (`Field name '<f>' is invalid in JSON input`), then the emptiness and range checks.
 * This core's own limits come last: ids longer than anything can be stored under
 * (functions/shared/id-limits.ts) and a skew above {@link MAX_SKEW}.
 */
import * as z from 'zod/mini';
import { BadRequestError } from '#functions/shared/errors.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { javaInt, jsonString, optional, queryString, rule } from '#functions/shared/request-schema.js';
import { checkUserIdLength } from '../metadata/user-id.js';
import { MAX_SKEW } from './codes.js';

const nonEmpty = (value: string, field: string) => {
  if (value === '') throw new BadRequestError(`${field} cannot be empty`);
};

/**
 * An object of the required string `fields`, each parsed in order first, then those of
 * `nonEmptyFields` checked in order (`<field> cannot be empty`).
 */
function requiredStrings<F extends string>(fields: readonly F[], nonEmptyFields: readonly NoInfer<F>[]) {
  const shape = Object.fromEntries(fields.map((field) => [field, jsonString()])) as {
    [K in F]: ReturnType<typeof jsonString>;
  };
  return rule(z.object(shape), (parsed) => {
    const values = parsed as Record<F, string>;
    for (const field of nonEmptyFields) nonEmpty(values[field], field);
    return values as { readonly [K in F]: string };
  });
}

export interface CreateDeviceInput {
  readonly userId: string;
  /** Absent: the core names it `TOTP Device <n>`. */
  readonly deviceName?: string;
  readonly skew: number;
  readonly period: number;
}

/** `POST /recipe/totp/device` `{userId, deviceName?, skew, period}`. */
export const createDeviceRequest = rule(
  z.object({ userId: jsonString(), deviceName: optional(jsonString()), skew: javaInt(), period: javaInt() }),
  ({ userId, deviceName, skew, period }): CreateDeviceInput => {
    nonEmpty(userId, 'userId');
    if (deviceName !== undefined) nonEmpty(deviceName, 'deviceName');
    if (skew < 0) throw new BadRequestError('skew must be >= 0');
    if (period <= 0) throw new BadRequestError('period must be > 0');
    checkUserIdLength(userId);
    if (deviceName !== undefined) checkIdLength('totpDeviceName', deviceName, 'deviceName');
    if (skew > MAX_SKEW) throw new BadRequestError(`skew must be <= ${MAX_SKEW}`);
    return { userId, ...(deviceName !== undefined ? { deviceName } : {}), skew, period };
  },
);

export interface DeviceInput {
  readonly userId: string;
  readonly deviceName: string;
}

/** `POST /<t>/recipe/totp/device/verify` `{userId, deviceName, totp}`. */
export const verifyDeviceRequest = requiredStrings(['userId', 'deviceName', 'totp'], ['userId', 'deviceName']);

/** `POST /<t>/recipe/totp/verify` `{userId, totp}`. */
export const verifyCodeRequest = requiredStrings(['userId', 'totp'], ['userId']);

/** `POST /recipe/totp/device/remove` `{userId, deviceName}`. */
export const removeDeviceRequest = requiredStrings(['userId', 'deviceName'], ['userId', 'deviceName']);

export interface RenameDeviceInput {
  readonly userId: string;
  readonly existingDeviceName: string;
  readonly newDeviceName: string;
}

/** `PUT /recipe/totp/device` `{userId, existingDeviceName, newDeviceName}`. */
export const renameDeviceRequest = rule(
  requiredStrings(['userId', 'existingDeviceName', 'newDeviceName'], ['userId', 'existingDeviceName', 'newDeviceName']),
  (input): RenameDeviceInput => {
    checkIdLength('totpDeviceName', input.newDeviceName, 'newDeviceName');
    return input;
  },
);

/** `GET /recipe/totp/device/list?userId=` query; an empty id → 400 `userId cannot be empty`. */
export const listDevicesQuery = z.object({
  userId: rule(queryString(), (userId) => {
    nonEmpty(userId, 'userId');
    return userId;
  }),
});
