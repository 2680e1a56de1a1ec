/**
 * TOTP devices of a user id. Only the device list is served here; a device's secret never
 * appears in a response, a log line or an error message.
 */
import { BadRequestError } from '#functions/shared/errors.js';
import { requiredQuery } from '#functions/shared/input.js';
import { fitsUserId } from '../metadata/user-id.js';

/** A device as the API shows it (no secret). */
export interface TotpDeviceView {
  readonly name: string;
  readonly period: number;
  readonly skew: number;
  readonly verified: boolean;
}

/** What the TOTP use cases need from storage. */
export interface TotpStore {
  listTotpDevices(appId: string, userId: string): Promise<TotpDeviceView[]>;
}

/** `GET /recipe/totp/device/list?userId=` query; an empty id → 400 `userId cannot be empty`. */
export function parseListDevices(query: Readonly<Record<string, string | undefined>>): { userId: string } {
  const userId = requiredQuery(query, 'userId');
  if (userId === '') throw new BadRequestError('userId cannot be empty');
  return { userId };
}

/** → `{status:"OK", devices:[{name, period, skew, verified}]}` (empty when the id has none). */
export async function listDevices(store: TotpStore, appId: string, input: { userId: string }) {
  const devices = fitsUserId(input.userId) ? await store.listTotpDevices(appId, input.userId) : [];
  return { status: 'OK', devices };
}
