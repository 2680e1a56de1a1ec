/**
 * TOTP devices of a user id. Only the device list is served here; a device's secret never
 * appears in a response, a log line or an error message.
 */
import { BadRequestError } from '#functions/shared/errors.js';
import { requiredQuery } from '#functions/shared/input.js';
import { fitsUserId } from '../metadata/user-id.js';
import type { TotpStore } from './ports.js';

export type { TotpDeviceView, TotpStore } from './ports.js';

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
