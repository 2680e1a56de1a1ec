/**
 * User metadata. Item: `APP#<a>#U#<userId>` / `METADATA`, attributes `userId`, `metadataJson`
 * (the object as JSON text: DynamoDB numbers cannot hold every JSON number), `version`
 * (optimistic concurrency), `updatedAt`; GSI3 user-data entry (keys/metadata.ts).
 */
import {
  MAX_METADATA_BYTES,
  type Metadata,
  metadataSizeMessage,
  shallowMergeMetadata,
} from '#functions/domain/metadata/merge.js';
import type { MetadataStores, StoredMetadata } from '#functions/domain/metadata/ports.js';
import { StoredValueRefusedError } from '#functions/shared/errors.js';
import { jsonBytes } from '#functions/shared/storable.js';
import { METADATA_SK, userDataIndexPartitionOf, userPartition } from './keys/metadata.js';
import { batchDeleteAll, defineEntity, getItem, putItem, type Table, type TransactItem } from './kit/index.js';

type Owner = { appId: string; userId: string };
export const metadataEntity = defineEntity({
  type: 'USER_METADATA',
  subject: "The user's metadata",
  key: (m: Owner) => ({ PK: userPartition(m.appId, m.userId), SK: METADATA_SK }),
  indexes: { GSI3: { pk: (m: Owner) => userDataIndexPartitionOf(m.appId, m.userId), sk: (_: Owner) => METADATA_SK } },
});

/** Access pattern "metadata of a user id": GetItem `APP#<a>#U#<userId>` / `METADATA` (consistent). */
async function getMetadata(table: Table, appId: string, userId: string): Promise<StoredMetadata | undefined> {
  const item = await getItem(table, metadataEntity.key({ appId, userId }));
  if (!item) return undefined;
  return { metadata: JSON.parse(item.metadataJson as string) as Metadata, version: item.version as number };
}

/**
 * The Put of a metadata item at `expectedVersion + 1`, conditional on the stored item still
 * being at `expectedVersion` (or absent when undefined).
 */
function metadataPut(
  table: Table,
  appId: string,
  userId: string,
  metadata: Metadata,
  expectedVersion: number | undefined,
): NonNullable<TransactItem['Put']> {
  const owner = { appId, userId };
  return {
    TableName: table.name,
    Item: metadataEntity.item(
      owner,
      { userId, metadataJson: JSON.stringify(metadata), version: (expectedVersion ?? 0) + 1, updatedAt: Date.now() },
      { GSI3: owner },
    ),
    ...(expectedVersion === undefined
      ? { ConditionExpression: 'attribute_not_exists(PK)' }
      : { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': expectedVersion } }),
  };
}

/**
 * For the import transaction: reads the id's current metadata (consistently) and returns a Put
 * of `current` shallow-merged with `update` (null deletes a key), conditional on the item being
 * unchanged since this read (same `version`, or still absent). If the transaction is cancelled
 * by that condition, call this again and retry. A merged result beyond the metadata size limit is
 * refused (`userMetadata is too large. Max size is 350000 bytes.`, a `StoredValueRefusedError`):
 * nothing is written.
 */
export async function metadataMergeWrite(
  table: Table,
  appId: string,
  userId: string,
  update: Record<string, unknown>,
): Promise<TransactItem> {
  const current = await getMetadata(table, appId, userId);
  const merged = shallowMergeMetadata(current?.metadata ?? {}, update);
  if (jsonBytes(merged) > MAX_METADATA_BYTES) throw new StoredValueRefusedError(metadataSizeMessage('userMetadata'));
  return { Put: metadataPut(table, appId, userId, merged, current?.version) };
}

/** The metadata use cases' storage port for one table, bound to one app by `forApp`. */
export function createMetadataStore(table: Table): MetadataStores {
  return {
    forApp: (appId) => ({
      readUserMetadata: (userId) => getMetadata(table, appId, userId),
      /** Optimistic write; false when the stored metadata changed since `expectedVersion` was read. */
      async writeUserMetadata(userId, metadata, expectedVersion) {
        const put = metadataPut(table, appId, userId, metadata, expectedVersion);
        return putItem(table, put.Item as Record<string, unknown>, {
          expression: put.ConditionExpression as string,
          ...(put.ExpressionAttributeValues ? { values: put.ExpressionAttributeValues } : {}),
        });
      },
      async deleteUserMetadata(userId) {
        await batchDeleteAll(table, [metadataEntity.key({ appId, userId })]);
      },
    }),
  };
}
