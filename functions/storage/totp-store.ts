/**
 * TOTP devices of a user id. Item: `APP#<a>#U#<userId>` / `TOTP#<deviceName>`, attributes
 * `userId`, `deviceName`, `secretKey`, `period`, `skew`, `verified`, `createdAt`; GSI3 user-data
 * entry. The secret is only ever read by code that verifies codes; listing projects it away so
 * it never leaves DynamoDB on that path.
 */

import { defaultTotpDeviceName } from '#functions/domain/totp/names.js';
import type { TotpDeviceView, TotpStore } from '#functions/domain/totp/service.js';
import { tableName } from '#functions/shared/clients.js';
import { userDataIndexKeys } from './keys/metadata.js';
import { TOTP_SORT_PREFIX, totpDeviceSortKey, userPartition } from './keys/totp.js';
import { queryAll } from './query.js';
import type { TransactWriteItem } from './role-store.js';

export type { TransactWriteItem } from './role-store.js';

const ENTITY = 'TOTP_DEVICE';

/** A device to store; the secret is base32 text as the reference core keeps it. */
export interface TotpDeviceInput {
  /** Already trimmed. Absent → `TOTP Device 0` (see below). */
  readonly deviceName?: string;
  readonly secretKey: string;
  readonly period: number;
  readonly skew: number;
}

/**
 * A Put of a verified device created now, conditional on `attribute_not_exists(PK)`, so a
 * duplicate device name cancels the transaction (map that to the import's device error; never
 * put the secret into the message).
 *
 * Default name: the reference names a nameless device `TOTP Device <n>` with n = the number of
 * the user's verified devices, counting up until the name is free. This function cannot read,
 * so a nameless device gets `TOTP Device 0`, right for the first device of a new user; when a
 * user brings several devices, name them first with `assignTotpDeviceNames` (domain/totp/names.ts),
 * which applies the reference's rule across the batch.
 */
export function totpDevicePut(appId: string, userId: string, device: TotpDeviceInput): TransactWriteItem {
  const deviceName = device.deviceName ?? defaultTotpDeviceName(0);
  const key = { PK: userPartition(appId, userId), SK: totpDeviceSortKey(deviceName) };
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...key,
        entityType: ENTITY,
        userId,
        deviceName,
        secretKey: device.secretKey,
        period: device.period,
        skew: device.skew,
        verified: true,
        createdAt: Date.now(),
        ...userDataIndexKeys(appId, userId, key.SK),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/**
 * Access pattern "TOTP devices of a user id": Query `APP#<a>#U#<userId>`, SK begins_with `TOTP#`,
 * projecting name, period, skew and verified only (sorted by name).
 */
export async function listTotpDevices(appId: string, userId: string): Promise<TotpDeviceView[]> {
  const devices: TotpDeviceView[] = [];
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': userPartition(appId, userId), ':sk': TOTP_SORT_PREFIX },
    ProjectionExpression: 'deviceName, period, skew, verified',
    ConsistentRead: true,
  });
  for (const item of items) {
    devices.push({
      name: item.deviceName as string,
      period: item.period as number,
      skew: item.skew as number,
      verified: item.verified as boolean,
    });
  }
  return devices;
}

/** The DynamoDB implementation of the TOTP use cases' storage port. */
export const totpStore: TotpStore = { listTotpDevices };
