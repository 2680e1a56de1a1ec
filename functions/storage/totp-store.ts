/**
 * TOTP devices of a user id. Item: `APP#<a>#U#<userId>` / `TOTP#<deviceName>`, attributes
 * `userId`, `deviceName`, `secretKey`, `period`, `skew`, `verified`, `createdAt`; GSI3 user-data
 * entry. The secret is only ever read by code that verifies codes; listing projects it away so
 * it never leaves DynamoDB on that path.
 */
import { defaultTotpDeviceName } from '#functions/domain/totp/names.js';
import type { TotpDeviceView, TotpStore } from '#functions/domain/totp/ports.js';
import { userDataIndexPartitionOf } from './keys/metadata.js';
import { TOTP_SORT_PREFIX, totpDeviceSortKey, userPartition } from './keys/totp.js';
import { defineEntity, queryAll, type Table, type TransactItem } from './kit/index.js';

type Device = { appId: string; userId: string; deviceName: string };
export const totpDeviceEntity = defineEntity({
  type: 'TOTP_DEVICE',
  key: (d: Device) => ({ PK: userPartition(d.appId, d.userId), SK: totpDeviceSortKey(d.deviceName) }),
  indexes: {
    GSI3: {
      pk: (d: Device) => userDataIndexPartitionOf(d.appId, d.userId),
      sk: (d: Device) => totpDeviceSortKey(d.deviceName),
    },
  },
});

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
export function totpDevicePut(table: Table, appId: string, userId: string, device: TotpDeviceInput): TransactItem {
  const deviceName = device.deviceName ?? defaultTotpDeviceName(0);
  const d = { appId, userId, deviceName };
  return {
    Put: {
      TableName: table.name,
      Item: totpDeviceEntity.item(
        d,
        {
          userId,
          deviceName,
          secretKey: device.secretKey,
          period: device.period,
          skew: device.skew,
          verified: true,
          createdAt: Date.now(),
        },
        { GSI3: d },
      ),
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/**
 * Access pattern "TOTP devices of a user id": Query `APP#<a>#U#<userId>`, SK begins_with `TOTP#`,
 * projecting name, period, skew and verified only (sorted by name).
 */
export async function listTotpDevices(table: Table, appId: string, userId: string): Promise<TotpDeviceView[]> {
  const items = await queryAll(
    table,
    { pk: userPartition(appId, userId), sk: { beginsWith: TOTP_SORT_PREFIX } },
    { attributes: ['deviceName', 'period', 'skew', 'verified'], consistent: true },
  );
  return items.map((item) => ({
    name: item.deviceName as string,
    period: item.period as number,
    skew: item.skew as number,
    verified: item.verified as boolean,
  }));
}

/** The TOTP use cases' storage port for one table. */
export function createTotpStore(table: Table): TotpStore {
  return { listTotpDevices: (appId, userId) => listTotpDevices(table, appId, userId) };
}
