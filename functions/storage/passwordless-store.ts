/**
 * Passwordless devices and codes (the port in functions/domain/passwordless/ports.ts), in the
 * app's table; keys in keys/passwordless.ts. Only hashes of device ids and link codes are stored
 * (docs/passwordless.md); every item carries the TTL attribute, so DynamoDB drops what expired,
 * and the use cases never rely on that (they compare the code's creation time themselves).
 */
import type {
  DeviceWithCodes,
  PasswordlessCode,
  PasswordlessDevice,
  TenantRef,
} from '#functions/domain/passwordless/model.js';
import type { PasswordlessStore } from '#functions/domain/passwordless/ports.js';
import {
  PASSWORDLESS_CODE_ID_INDEX_SK,
  PASSWORDLESS_CODE_PREFIX,
  PASSWORDLESS_DEVICE_SK,
  PASSWORDLESS_SHARDS,
  passwordlessAppIndexPartition,
  passwordlessAppIndexSortKey,
  passwordlessCodeIdIndexPartition,
  passwordlessCodeSortKey,
  passwordlessDeviceIndexSortKey,
  passwordlessDevicePartition,
  passwordlessEmailIndexPartition,
  passwordlessPhoneIndexPartition,
  passwordlessTenantIndexPrefix,
} from './keys/passwordless.js';
import {
  allShards,
  batchDeleteAll,
  defineEntity,
  deleteItem,
  type Item,
  type Key,
  type PartitionQuery,
  queryAll,
  queryPages,
  shardOf,
  type Table,
  transact,
  ttlSeconds,
  updateExpression,
  updateItem,
} from './kit/index.js';

type DeviceRef = { appId: string; tenantId: string; deviceIdHash: string };
type ContactRef = DeviceRef & { email?: string | undefined; phoneNumber?: string | undefined };
type CodeRef = DeviceRef & { linkCodeHash: string };
type CodeIdRef = { appId: string; tenantId: string; codeId: string };
type AppIndexRef = DeviceRef & { linkCodeHash?: string };

/** GSI2: the app's (and tenant's) devices and codes, sharded by device. */
const appIndex = {
  pk: (r: AppIndexRef) => passwordlessAppIndexPartition(r.appId, shardOf(r.deviceIdHash, PASSWORDLESS_SHARDS)),
  sk: (r: AppIndexRef) => passwordlessAppIndexSortKey(r.tenantId, r.deviceIdHash, r.linkCodeHash),
};

const deviceEntity = defineEntity({
  type: 'PASSWORDLESS_DEVICE',
  key: (d: DeviceRef) => ({
    PK: passwordlessDevicePartition(d.appId, d.tenantId, d.deviceIdHash),
    SK: PASSWORDLESS_DEVICE_SK,
  }),
  indexes: {
    GSI1: {
      pk: (d: ContactRef) =>
        d.email !== undefined
          ? passwordlessEmailIndexPartition(d.appId, d.tenantId, d.email)
          : passwordlessPhoneIndexPartition(d.appId, d.tenantId, d.phoneNumber ?? ''),
      sk: (d: ContactRef) => passwordlessDeviceIndexSortKey(d.deviceIdHash),
    },
    GSI2: appIndex,
  },
});

const codeEntity = defineEntity({
  type: 'PASSWORDLESS_CODE',
  key: (c: CodeRef) => ({
    PK: passwordlessDevicePartition(c.appId, c.tenantId, c.deviceIdHash),
    SK: passwordlessCodeSortKey(c.linkCodeHash),
  }),
  indexes: {
    GSI1: {
      pk: (c: CodeIdRef) => passwordlessCodeIdIndexPartition(c.appId, c.tenantId, c.codeId),
      sk: (_: CodeIdRef) => PASSWORDLESS_CODE_ID_INDEX_SK,
    },
    GSI2: appIndex,
  },
});

function deviceItem(tenant: TenantRef, device: PasswordlessDevice, expiresAt: number): Item {
  const ref = { ...tenant, deviceIdHash: device.deviceIdHash };
  return deviceEntity.item(
    ref,
    {
      tenantId: tenant.tenantId,
      deviceIdHash: device.deviceIdHash,
      ...(device.email !== undefined ? { email: device.email } : {}),
      ...(device.phoneNumber !== undefined ? { phoneNumber: device.phoneNumber } : {}),
      linkCodeSalt: device.linkCodeSalt,
      failedAttempts: device.failedAttempts,
      expiresAt: ttlSeconds(expiresAt),
    },
    { GSI1: { ...ref, email: device.email, phoneNumber: device.phoneNumber }, GSI2: ref },
  );
}

function codeItem(tenant: TenantRef, code: PasswordlessCode, expiresAt: number): Item {
  const ref = { ...tenant, deviceIdHash: code.deviceIdHash, linkCodeHash: code.linkCodeHash };
  return codeEntity.item(
    ref,
    {
      tenantId: tenant.tenantId,
      codeId: code.codeId,
      deviceIdHash: code.deviceIdHash,
      linkCodeHash: code.linkCodeHash,
      createdAt: code.createdAt,
      expiresAt: ttlSeconds(expiresAt),
    },
    { GSI1: { ...tenant, codeId: code.codeId }, GSI2: ref },
  );
}

function deviceFromItem(item: Item): PasswordlessDevice {
  return {
    deviceIdHash: item.deviceIdHash as string,
    ...(typeof item.email === 'string' ? { email: item.email } : {}),
    ...(typeof item.phoneNumber === 'string' ? { phoneNumber: item.phoneNumber } : {}),
    linkCodeSalt: item.linkCodeSalt as string,
    failedAttempts: item.failedAttempts as number,
  };
}

function codeFromItem(item: Item): PasswordlessCode {
  return {
    codeId: item.codeId as string,
    deviceIdHash: item.deviceIdHash as string,
    linkCodeHash: item.linkCodeHash as string,
    createdAt: item.createdAt as number,
  };
}

const deviceKey = (tenant: TenantRef, deviceIdHash: string) => deviceEntity.key({ ...tenant, deviceIdHash });
const codeKey = (tenant: TenantRef, deviceIdHash: string, linkCodeHash: string) =>
  codeEntity.key({ ...tenant, deviceIdHash, linkCodeHash });
const keyOf = (item: Item): Key => ({ PK: item.PK as string, SK: item.SK as string });

/** Access pattern "a device with its codes": consistent Query of the device's partition. */
async function getDevice(table: Table, tenant: TenantRef, deviceIdHash: string): Promise<DeviceWithCodes | undefined> {
  const items = await queryAll(
    table,
    { pk: passwordlessDevicePartition(tenant.appId, tenant.tenantId, deviceIdHash) },
    { consistent: true },
  );
  const device = items.find((item) => item.SK === PASSWORDLESS_DEVICE_SK);
  if (!device) return undefined;
  const codes = items
    .filter((item) => (item.SK as string).startsWith(PASSWORDLESS_CODE_PREFIX))
    .map(codeFromItem)
    .sort((a, b) => a.createdAt - b.createdAt || a.codeId.localeCompare(b.codeId));
  return { device: deviceFromItem(device), codes };
}

/**
 * Access pattern "devices of an email / a phone number": Query GSI1, then each device's partition
 * (consistent), so a device removed since the index was written is left out.
 */
async function devicesIn(table: Table, tenant: TenantRef, indexPartition: string): Promise<DeviceWithCodes[]> {
  const entries = await queryAll(table, { index: 'GSI1', pk: indexPartition }, { attributes: ['deviceIdHash'] });
  const found = await Promise.all(entries.map((e) => getDevice(table, tenant, e.deviceIdHash as string)));
  return found.filter((d): d is DeviceWithCodes => d !== undefined);
}

/** Deletes what is left in a device's partition (after its DEVICE item, so no code can be added meanwhile). */
async function deletePartition(table: Table, tenant: TenantRef, deviceIdHash: string): Promise<void> {
  const rest = await queryAll(
    table,
    { pk: passwordlessDevicePartition(tenant.appId, tenant.tenantId, deviceIdHash) },
    { attributes: ['PK', 'SK'], consistent: true },
  );
  await batchDeleteAll(table, rest.map(keyOf));
}

const EXISTS = 'attribute_exists(PK)';
const ABSENT = 'attribute_not_exists(PK)';

export function createPasswordlessStore(table: Table): PasswordlessStore {
  return {
    async createDevice(tenant, device, code, expiresAt) {
      const result = await transact(table, [
        { Put: { TableName: table.name, Item: deviceItem(tenant, device, expiresAt), ConditionExpression: ABSENT } },
        { Put: { TableName: table.name, Item: codeItem(tenant, code, expiresAt), ConditionExpression: ABSENT } },
      ]);
      return result.ok;
    },

    async addCode(tenant, code, expiresAt) {
      // The code and the device's new expiry together, only while the device exists: a code is
      // never left without its device (removing a device deletes its DEVICE item first).
      const update = updateExpression({ expiresAt: ttlSeconds(expiresAt) });
      const result = await transact(table, [
        {
          Update: {
            TableName: table.name,
            Key: deviceKey(tenant, code.deviceIdHash),
            ...update,
            ConditionExpression: EXISTS,
          },
        },
        { Put: { TableName: table.name, Item: codeItem(tenant, code, expiresAt), ConditionExpression: ABSENT } },
      ]);
      if (result.ok) return 'OK';
      return result.failedIndexes.includes(0) ? 'UNKNOWN_DEVICE' : 'DUPLICATE';
    },

    getDevice: (tenant, deviceIdHash) => getDevice(table, tenant, deviceIdHash),

    devicesByEmail: (tenant, email) =>
      devicesIn(table, tenant, passwordlessEmailIndexPartition(tenant.appId, tenant.tenantId, email)),

    devicesByPhoneNumber: (tenant, phoneNumber) =>
      devicesIn(table, tenant, passwordlessPhoneIndexPartition(tenant.appId, tenant.tenantId, phoneNumber)),

    async codeById(tenant, codeId) {
      const [item] = await queryAll(table, {
        index: 'GSI1',
        pk: passwordlessCodeIdIndexPartition(tenant.appId, tenant.tenantId, codeId),
      });
      return item ? codeFromItem(item) : undefined;
    },

    async recordFailedAttempt(tenant, deviceIdHash, seen) {
      const result = await updateItem(
        table,
        deviceKey(tenant, deviceIdHash),
        updateExpression({ failedAttempts: seen + 1 }),
        {
          expression: `${EXISTS} AND #failed = :seen`,
          names: { '#failed': 'failedAttempts' },
          values: { ':seen': seen },
        },
      );
      return result.ok;
    },

    async consume(tenant, deviceIdHash, linkCodeHash) {
      const result = await transact(table, [
        { Delete: { TableName: table.name, Key: deviceKey(tenant, deviceIdHash), ConditionExpression: EXISTS } },
        {
          Delete: {
            TableName: table.name,
            Key: codeKey(tenant, deviceIdHash, linkCodeHash),
            ConditionExpression: EXISTS,
          },
        },
      ]);
      if (!result.ok) return false;
      await deletePartition(table, tenant, deviceIdHash);
      return true;
    },

    async removeDevice(tenant, deviceIdHash) {
      await deleteItem(table, deviceKey(tenant, deviceIdHash));
      await deletePartition(table, tenant, deviceIdHash);
    },

    async removeCode(tenant, code) {
      await deleteItem(table, codeKey(tenant, code.deviceIdHash, code.linkCodeHash));
    },
  };
}

const appShards = (appId: string, tenantId?: string): PartitionQuery[] =>
  allShards(PASSWORDLESS_SHARDS).map((shard) => ({
    index: 'GSI2',
    pk: passwordlessAppIndexPartition(appId, shard),
    ...(tenantId !== undefined ? { sk: { beginsWith: passwordlessTenantIndexPrefix(tenantId) } } : {}),
  }));

async function purgeShards(table: Table, queries: readonly PartitionQuery[]): Promise<void> {
  await Promise.all(
    queries.map(async (query) => {
      for await (const page of queryPages(table, query, { attributes: ['PK', 'SK'] })) {
        await batchDeleteAll(table, page.map(keyOf));
      }
    }),
  );
}

/** App deletion: every passwordless device and code of the app (GSI2 shards). */
export const purgeAppPasswordless = (table: Table, appId: string): Promise<void> =>
  purgeShards(table, appShards(appId));

/** Tenant deletion: every passwordless device and code of one tenant (GSI2 shards, by sort-key prefix). */
export const purgeTenantPasswordless = (table: Table, appId: string, tenantId: string): Promise<void> =>
  purgeShards(table, appShards(appId, tenantId));

/** The queries that find any passwordless item of an app (the app-table move check). */
export const passwordlessHoldingQueries = (appId: string): PartitionQuery[] => appShards(appId);
