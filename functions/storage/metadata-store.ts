/**
 * User metadata, and the "user data" helpers shared by metadata, role assignments and TOTP
 * devices (everything kept about a user id besides the user itself).
 *
 * Metadata item: `APP#<a>#U#<userId>` / `METADATA`, attributes `userId`, `metadataJson` (the
 * object as JSON text: DynamoDB numbers cannot hold every JSON number), `version` (optimistic
 * concurrency), `updatedAt`; GSI3 user-data entry (keys/metadata.ts).
 */

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Metadata, shallowMergeMetadata } from '#functions/domain/metadata/merge.js';
import type { MetadataStore, StoredMetadata } from '#functions/domain/metadata/service.js';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { deleteKeys } from './app-purge.js';
import {
  METADATA_SK,
  USER_DATA_SHARDS,
  userDataIndexKeys,
  userDataIndexPartition,
  userPartition,
} from './keys/metadata.js';
import { ROLE_SORT_PREFIX } from './keys/roles.js';
import { TOTP_SORT_PREFIX } from './keys/totp.js';
import { queryAll, queryPages } from './query.js';
import type { TransactWriteItem } from './role-store.js';

export type { TransactWriteItem } from './role-store.js';

const ENTITY = 'USER_METADATA';

const metadataKey = (appId: string, userId: string) => ({ PK: userPartition(appId, userId), SK: METADATA_SK });

/** Access pattern "metadata of a user id": GetItem `APP#<a>#U#<userId>` / `METADATA` (consistent). */
export async function getMetadata(appId: string, userId: string): Promise<StoredMetadata | undefined> {
  const out = await getDocumentClient().send(
    new GetCommand({ TableName: tableName(), Key: metadataKey(appId, userId), ConsistentRead: true }),
  );
  if (!out.Item) return undefined;
  return { metadata: JSON.parse(out.Item.metadataJson as string) as Metadata, version: out.Item.version as number };
}

/**
 * The Put of a metadata item at `expectedVersion + 1`, conditional on the stored item still
 * being at `expectedVersion` (or absent when undefined).
 */
function metadataPut(
  appId: string,
  userId: string,
  metadata: Metadata,
  expectedVersion: number | undefined,
): NonNullable<TransactWriteItem['Put']> {
  const key = metadataKey(appId, userId);
  return {
    TableName: tableName(),
    Item: {
      ...key,
      entityType: ENTITY,
      userId,
      metadataJson: JSON.stringify(metadata),
      version: (expectedVersion ?? 0) + 1,
      updatedAt: Date.now(),
      ...userDataIndexKeys(appId, userId, key.SK),
    },
    ...(expectedVersion === undefined
      ? { ConditionExpression: 'attribute_not_exists(PK)' }
      : { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': expectedVersion } }),
  };
}

/** Optimistic write; false when the stored metadata changed since `expectedVersion` was read. */
export async function saveMetadata(
  appId: string,
  userId: string,
  metadata: Metadata,
  expectedVersion: number | undefined,
): Promise<boolean> {
  try {
    await getDocumentClient().send(new PutCommand(metadataPut(appId, userId, metadata, expectedVersion)));
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

export async function deleteMetadata(appId: string, userId: string): Promise<void> {
  await deleteKeys([metadataKey(appId, userId)]);
}

/**
 * For the import transaction: reads the id's current metadata (consistently) and returns a Put
 * of `current` shallow-merged with `update` (null deletes a key), conditional on the item being
 * unchanged since this read (same `version`, or still absent). If the transaction is cancelled
 * by that condition, call this again and retry.
 */
export async function metadataMergeWrite(
  appId: string,
  userId: string,
  update: Record<string, unknown>,
): Promise<TransactWriteItem> {
  const current = await getMetadata(appId, userId);
  const merged = shallowMergeMetadata(current?.metadata ?? {}, update);
  return { Put: metadataPut(appId, userId, merged, current?.version) };
}

/** Keys of the user-data items of one id: metadata, role assignments (all tenants), TOTP devices. */
async function userDataKeys(appId: string, userId: string): Promise<{ PK: string; SK: string }[]> {
  const keys: { PK: string; SK: string }[] = [];
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': userPartition(appId, userId) },
    ProjectionExpression: 'PK, SK',
    ConsistentRead: true,
  });
  for (const item of items) {
    const sk = item.SK as string;
    if (sk === METADATA_SK || sk.startsWith(ROLE_SORT_PREFIX) || sk.startsWith(TOTP_SORT_PREFIX)) {
      keys.push({ PK: item.PK as string, SK: sk });
    }
  }
  return keys;
}

/**
 * Unconditional Deletes of every metadata, role-assignment and TOTP-device item of `userId`
 * (Query of its partition, other items left alone). A transaction holds at most 100 elements:
 * use {@link purgeUserData} when the list can be long.
 */
export async function userDataDeletes(appId: string, userId: string): Promise<TransactWriteItem[]> {
  const table = tableName();
  return (await userDataKeys(appId, userId)).map((Key) => ({ Delete: { TableName: table, Key } }));
}

/** Deletes metadata, role assignments and TOTP devices of `userId` (batched, not atomic). */
export async function purgeUserData(appId: string, userId: string): Promise<void> {
  await deleteKeys(await userDataKeys(appId, userId));
}

/**
 * App-deletion purger: every user-data item of the app (including those of ids that are not
 * users), found by Query on each GSI3 shard `APP#<a>#UDATA#<nn>`.
 */
export async function purgeAppUserData(appId: string): Promise<void> {
  await Promise.all(
    Array.from({ length: USER_DATA_SHARDS }, async (_, shard) => {
      const pages = queryPages({
        TableName: tableName(),
        IndexName: 'GSI3',
        KeyConditionExpression: 'GSI3PK = :pk',
        ExpressionAttributeValues: { ':pk': userDataIndexPartition(appId, shard) },
        ProjectionExpression: 'PK, SK',
      });
      for await (const page of pages) await deleteKeys(page.map((item) => ({ PK: item.PK, SK: item.SK })));
    }),
  );
}

/** The DynamoDB implementation of the metadata use cases' storage port. */
export const metadataStore: MetadataStore = { getMetadata, saveMetadata, deleteMetadata };
