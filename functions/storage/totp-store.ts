/**
 * TOTP devices of a user id. Item: `APP#<a>#U#<userId>` / `TOTP#<deviceName>`, attributes
 * `userId`, `deviceName`, `secretSealed`, `period`, `skew`, `verified`, `createdAt`; GSI3 user-data
 * entry (which projects the item: it holds the sealed secret only). The secret is sealed under the
 * credentials key (AES-256-GCM with its data key wrapped inline, bound to the app, the user id and
 * the device name) and opened only by {@link openTotpDeviceSecret}, for code that verifies codes;
 * listing projects it away so it never leaves DynamoDB on that path. Devices written before
 * secrets were sealed carry `secretKey` in clear; they read the same way.
 */
import type { KeyContext } from '#functions/domain/credentials/ports.js';
import { defaultTotpDeviceName } from '#functions/domain/totp/names.js';
import type { TotpDeviceView, TotpStore } from '#functions/domain/totp/ports.js';
import type { Envelope } from './crypto/envelope.js';
import { userDataIndexPartitionOf } from './keys/metadata.js';
import { TOTP_SORT_PREFIX, totpDeviceSortKey, userPartition } from './keys/totp.js';
import { defineEntity, getItem, queryAll, type Table, type TransactItem } from './kit/index.js';

/** The sealed secret (Binary): `wrapped length (2) | wrapped data key | AES-256-GCM box`. */
export const TOTP_SEALED_ATTRIBUTE = 'secretSealed';
/** The secret in clear, as devices written before secrets were sealed carry it. */
const TOTP_CLEAR_ATTRIBUTE = 'secretKey';

const totpContext = (appId: string): KeyContext => ({ purpose: 'totp-secret', appId });
const totpSecretData = (d: { appId: string; userId: string; deviceName: string }) =>
  `totp-secret\u0000${d.appId}\u0000${d.userId}\u0000${d.deviceName}`;

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
export async function openTotpDeviceSecret(
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
    return (await envelope().openInline(sealed, totpContext(appId), totpSecretData(d))).toString('utf8');
  }
  const clear = item[TOTP_CLEAR_ATTRIBUTE];
  return typeof clear === 'string' ? clear : undefined;
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

/** The TOTP use cases' storage port for one table; `envelope` opens device secrets (asked for only then). */
export function createTotpStore(table: Table, envelope: () => Envelope): TotpStore {
  return {
    listTotpDevices: (appId, userId) => listTotpDevices(table, appId, userId),
    deviceSecret: (appId, userId, deviceName) => openTotpDeviceSecret(table, envelope, appId, userId, deviceName),
  };
}
