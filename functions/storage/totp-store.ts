/**
 * TOTP devices of a user id and their attempt records (docs/totp-and-mfa.md).
 *
 * Device item: `APP#<a>#U#<userId>` / `TOTP#<deviceName>`, attributes `userId`, `deviceName`,
 * `secretSealed`, `period`, `skew`, `verified`, `createdAt`, and `sealedAs` once renamed; GSI3
 * user-data entry (which projects the item: it holds the sealed secret only). The secret is sealed
 * under the credentials key (AES-256-GCM with its data key wrapped inline, bound to the app, the
 * user id and the name the device had when it was sealed — `sealedAs`, else its name) and opened
 * only by {@link openTotpDeviceSecret}, for code that verifies codes; listing projects it away so
 * it never leaves DynamoDB on that path. Devices written before secrets were sealed carry
 * `secretKey` in clear; they read the same way.
 *
 * Attempt record: `APP#<a>#U#<userId>` / `TOTPATTEMPTS#` — one per user id of the app, whatever
 * the tenant — attributes `failedAt` (epoch ms, newest first), `usedCodes` (`[{d: SHA-256 of the
 * code, e: expiry}]`), `version` (the conditional write's guard), `expiresAt` (TTL); GSI3 user-data
 * entry. No code is kept in clear. Records kept per tenant before (`TOTPATTEMPTS#<tenantId>`) are
 * not read; their TTL, the tenant's removal and the user's remove them.
 */
import type { KeyContext } from '#functions/domain/credentials/ports.js';
import { defaultTotpDeviceName } from '#functions/domain/totp/names.js';
import type {
  AttemptRecord,
  StoredAttempts,
  TotpDeviceView,
  TotpStores,
  UsedCode,
} from '#functions/domain/totp/ports.js';
import type { Envelope } from './crypto/envelope.js';
import { USER_DATA_SHARDS, userDataIndexPartition, userDataIndexPartitionOf } from './keys/metadata.js';
import {
  TOTP_ATTEMPTS_SORT_PREFIX,
  TOTP_SORT_PREFIX,
  TOTP_USER_ATTEMPTS_SORT_KEY,
  totpAttemptsSortKey,
  totpDeviceSortKey,
  userPartition,
} from './keys/totp.js';
import {
  allShards,
  batchDeleteAll,
  defineEntity,
  deleteItem,
  getItem,
  type Item,
  type Key,
  keyAttributes,
  putItem,
  queryAll,
  type Table,
  type TransactItem,
  transact,
  updateExpression,
  updateItem,
} from './kit/index.js';

/** The sealed secret (Binary): `wrapped length (2) | wrapped data key | AES-256-GCM box`. */
const TOTP_SEALED_ATTRIBUTE = 'secretSealed';
/** The secret in clear, as devices written before secrets were sealed carry it. */
const TOTP_CLEAR_ATTRIBUTE = 'secretKey';
/** The name a renamed device's secret was sealed under (its associated data). */
const SEALED_AS_ATTRIBUTE = 'sealedAs';

const totpContext = (appId: string): KeyContext => ({ purpose: 'totp-secret', appId });
const totpSecretData = (d: { appId: string; userId: string; deviceName: string }) =>
  `totp-secret\u0000${d.appId}\u0000${d.userId}\u0000${d.deviceName}`;

type Device = { appId: string; userId: string; deviceName: string };
const totpDeviceEntity = defineEntity({
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
 * put the secret into the message). `sealedSecret` is the secret as {@link sealTotpSecret} sealed
 * it for this device; without it the item carries no secret at all (what a dry run's preview of the
 * write needs: its key and condition).
 *
 * Default name: the reference names a nameless device `TOTP Device <n>` with n = the number of
 * the user's verified devices, counting up until the name is free. This function cannot read,
 * so a nameless device gets `TOTP Device 0`, right for the first device of a new user; when a
 * user brings several devices, name them first with `assignTotpDeviceNames` (domain/totp/names.ts),
 * which applies the reference's rule across the batch.
 */
export function totpDevicePut(
  table: Table,
  appId: string,
  userId: string,
  device: TotpDeviceInput,
  sealedSecret?: Uint8Array,
): TransactItem {
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
          ...(sealedSecret ? { [TOTP_SEALED_ATTRIBUTE]: sealedSecret } : {}),
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

/** A device's secret sealed for its place (app, user id, device name). */
export async function sealTotpSecret(
  envelope: () => Envelope,
  appId: string,
  userId: string,
  device: TotpDeviceInput,
): Promise<Uint8Array> {
  const deviceName = device.deviceName ?? defaultTotpDeviceName(0);
  return envelope().sealInline(
    Buffer.from(device.secretKey, 'utf8'),
    totpContext(appId),
    totpSecretData({ appId, userId, deviceName }),
  );
}

/**
 * The secret of one device in clear (base32 text, as imported), for code that verifies TOTP codes:
 * opened when sealed, as stored when written before secrets were sealed; undefined when the
 * device does not exist. Throws UnreadableSecretError when it can never be opened, a
 * KeyServiceUnavailableError when the key service does not answer for now.
 */
async function openTotpDeviceSecret(
  table: Table,
  envelope: () => Envelope,
  appId: string,
  userId: string,
  deviceName: string,
): Promise<string | undefined> {
  const d = { appId, userId, deviceName };
  const item = await getItem(table, totpDeviceEntity.key(d));
  if (!item) return undefined;
  const sealed = item[TOTP_SEALED_ATTRIBUTE];
  if (sealed instanceof Uint8Array) {
    const sealedAs = item[SEALED_AS_ATTRIBUTE];
    const place = { appId, userId, deviceName: typeof sealedAs === 'string' ? sealedAs : deviceName };
    return (await envelope().openInline(sealed, totpContext(appId), totpSecretData(place))).toString('utf8');
  }
  const clear = item[TOTP_CLEAR_ATTRIBUTE];
  return typeof clear === 'string' ? clear : undefined;
}

/**
 * Access pattern "TOTP devices of a user id": Query `APP#<a>#U#<userId>`, SK begins_with `TOTP#`,
 * projecting name, period, skew and verified only (sorted by name).
 */
async function listTotpDevices(table: Table, appId: string, userId: string): Promise<TotpDeviceView[]> {
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

/**
 * A new unverified device, its secret sealed for its place: one Put on condition that no device
 * of the name exists or that the one there is unverified (replaced, as the reference replaces it).
 */
async function createDevice(
  table: Table,
  envelope: () => Envelope,
  appId: string,
  userId: string,
  device: { readonly name: string; readonly period: number; readonly skew: number },
  secret: string,
): Promise<'OK' | 'EXISTS'> {
  const input = { deviceName: device.name, secretKey: secret, period: device.period, skew: device.skew };
  const sealed = await sealTotpSecret(envelope, appId, userId, input);
  const d = { appId, userId, deviceName: device.name };
  const item = totpDeviceEntity.item(
    d,
    {
      userId,
      deviceName: device.name,
      [TOTP_SEALED_ATTRIBUTE]: sealed,
      period: device.period,
      skew: device.skew,
      verified: false,
      createdAt: Date.now(),
    },
    { GSI3: d },
  );
  const written = await putItem(table, item, {
    expression: 'attribute_not_exists(PK) OR #verified = :no',
    names: { '#verified': 'verified' },
    values: { ':no': false },
  });
  return written ? 'OK' : 'EXISTS';
}

async function markDeviceVerified(table: Table, appId: string, userId: string, deviceName: string) {
  const key = totpDeviceEntity.key({ appId, userId, deviceName });
  const result = await updateItem(table, key, updateExpression({ verified: true }), {
    expression: 'attribute_exists(PK)',
  });
  return result.ok;
}

/** Device attributes a rename carries over (the key, index entry and name are the new ones). */
const CARRIED = ['userId', TOTP_SEALED_ATTRIBUTE, TOTP_CLEAR_ATTRIBUTE, 'period', 'skew', 'verified', 'createdAt'];

/**
 * Renames a device: Delete of the old item (on condition that it is still as read) and Put of the
 * new one (on condition that the name is free) in one transaction. The sealed secret moves as it
 * is, bound to the name it was sealed under (`sealedAs`), so renaming never opens a secret.
 */
async function renameDevice(
  table: Table,
  appId: string,
  userId: string,
  from: string,
  to: string,
): Promise<'OK' | 'UNKNOWN_DEVICE' | 'EXISTS'> {
  const oldKey = totpDeviceEntity.key({ appId, userId, deviceName: from });
  for (let round = 0; round < 5; round++) {
    const item = await getItem(table, oldKey);
    if (!item) return 'UNKNOWN_DEVICE';
    if (from === to) return 'OK';
    const carried: Item = {};
    for (const name of CARRIED) if (item[name] !== undefined) carried[name] = item[name];
    const sealedAs = item[SEALED_AS_ATTRIBUTE];
    if (item[TOTP_SEALED_ATTRIBUTE] !== undefined)
      carried[SEALED_AS_ATTRIBUTE] = typeof sealedAs === 'string' ? sealedAs : from;
    const d = { appId, userId, deviceName: to };
    const result = await transact(table, [
      {
        Delete: {
          TableName: table.name,
          Key: oldKey,
          ConditionExpression: 'attribute_exists(PK) AND #verified = :seen',
          ExpressionAttributeNames: { '#verified': 'verified' },
          ExpressionAttributeValues: { ':seen': item.verified },
        },
      },
      {
        Put: {
          TableName: table.name,
          Item: totpDeviceEntity.item(d, { ...carried, deviceName: to }, { GSI3: d }),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    ]);
    if (result.ok) return 'OK';
    // The old device changed or went meanwhile: read it again; else the new name is taken.
    if (!result.failedIndexes.includes(0)) return 'EXISTS';
  }
  throw new Error('a TOTP device kept changing during its rename');
}

type AttemptsPlace = { appId: string; userId: string };
const totpAttemptsEntity = defineEntity({
  type: 'TOTP_ATTEMPTS',
  subject: "The user's TOTP attempts",
  key: (a: AttemptsPlace) => ({ PK: userPartition(a.appId, a.userId), SK: TOTP_USER_ATTEMPTS_SORT_KEY }),
  indexes: {
    GSI3: {
      pk: (a: AttemptsPlace) => userDataIndexPartitionOf(a.appId, a.userId),
      sk: () => TOTP_USER_ATTEMPTS_SORT_KEY,
    },
  },
});

const numbersOf = (value: unknown): number[] =>
  Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];

function usedCodesOf(value: unknown): UsedCode[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v) =>
    v && typeof v === 'object' && typeof v.d === 'string' && typeof v.e === 'number'
      ? [{ codeDigest: v.d, expiresAt: v.e }]
      : [],
  );
}

async function readAttempts(table: Table, place: AttemptsPlace): Promise<StoredAttempts> {
  const item = await getItem(table, totpAttemptsEntity.key(place));
  if (!item) return { record: { failedAt: [], usedCodes: [] }, version: 0 };
  return {
    record: { failedAt: numbersOf(item.failedAt), usedCodes: usedCodesOf(item.usedCodes) },
    version: typeof item.version === 'number' ? item.version : 0,
  };
}

async function saveAttempts(
  table: Table,
  place: AttemptsPlace,
  record: AttemptRecord,
  seenVersion: number,
  expiresAt: number,
): Promise<boolean> {
  const item = totpAttemptsEntity.item(
    place,
    {
      userId: place.userId,
      failedAt: [...record.failedAt],
      usedCodes: record.usedCodes.map((c) => ({ d: c.codeDigest, e: c.expiresAt })),
      version: seenVersion + 1,
      expiresAt: Math.ceil(expiresAt / 1000),
    },
    { GSI3: place },
  );
  return putItem(
    table,
    item,
    seenVersion === 0
      ? { expression: 'attribute_not_exists(PK)' }
      : { expression: '#version = :seen', names: { '#version': 'version' }, values: { ':seen': seenVersion } },
  );
}

/** The attempt record of a user id, and any kept per tenant before (Query of its partition). */
async function removeAttempts(table: Table, appId: string, userId: string): Promise<void> {
  const items = await queryAll(
    table,
    { pk: userPartition(appId, userId), sk: { beginsWith: TOTP_ATTEMPTS_SORT_PREFIX } },
    { attributes: ['PK', 'SK'], consistent: true },
  );
  await batchDeleteAll(table, items as Key[]);
}

/**
 * Tenant-removal purger: every attempt record kept for the tenant before attempts were counted per
 * user, by Query on each GSI3 user-data shard (sort key `TOTPATTEMPTS#<tenantId>`; the prefix also
 * matches longer tenant ids, filtered out). The users' own records stay: they belong to the user
 * in the app, not to a tenant.
 */
export async function purgeTenantTotpAttempts(table: Table, appId: string, tenantId: string): Promise<void> {
  const sk = totpAttemptsSortKey(tenantId);
  const gsi = keyAttributes('GSI3');
  await Promise.all(
    allShards(USER_DATA_SHARDS).map(async (shard) => {
      const items = await queryAll(
        table,
        { index: 'GSI3', pk: userDataIndexPartition(appId, shard), sk: { beginsWith: sk } },
        { attributes: ['PK', 'SK', gsi.sk] },
      );
      const keys = items.filter((item) => item[gsi.sk] === sk).map((item) => ({ PK: item.PK, SK: item.SK }) as Key);
      await batchDeleteAll(table, keys);
    }),
  );
}

/**
 * The TOTP use cases' storage port for one table, bound to one app by `forApp`; `envelope` seals
 * and opens device secrets (asked for only then).
 */
export function createTotpStore(table: Table, envelope: () => Envelope): TotpStores {
  return {
    forApp: (appId) => ({
      listTotpDevices: (userId) => listTotpDevices(table, appId, userId),
      openTotpDeviceSecret: (userId, deviceName) => openTotpDeviceSecret(table, envelope, appId, userId, deviceName),
      createTotpDevice: (userId, device, secret) => createDevice(table, envelope, appId, userId, device, secret),
      markTotpDeviceVerified: (userId, deviceName) => markDeviceVerified(table, appId, userId, deviceName),
      removeTotpDevice: async (userId, deviceName) =>
        (await deleteItem(table, totpDeviceEntity.key({ appId, userId, deviceName }))).existed,
      renameTotpDevice: (userId, from, to) => renameDevice(table, appId, userId, from, to),
      readTotpAttempts: (userId) => readAttempts(table, { appId, userId }),
      saveTotpAttempts: (userId, record, seenVersion, expiresAt) =>
        saveAttempts(table, { appId, userId }, record, seenVersion, expiresAt),
      removeTotpAttempts: (userId) => removeAttempts(table, appId, userId),
    }),
  };
}
