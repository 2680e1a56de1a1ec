/**
 * DynamoDB implementation of the staged-users store (keys: ./keys/staging.ts, layout: README
 * "Data model"). Every status change and every row deletion updates the row's counter shard in
 * the same transaction, so `count` is exact; every update is conditioned on the row's current
 * status, so a concurrent writer can never make the counters drift.
 */

import { randomUUID } from 'node:crypto';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandOutput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type {
  PendingRef,
  StagedCursor,
  StagedStatus,
  StagedUserRecord,
  StagingStore,
} from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportUser } from '#functions/domain/bulk-import/types.js';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { type AwsError, classifyCancellation, isTransientError } from './dynamo-errors.js';
import {
  STAGED_COUNTER_SHARDS,
  STAGED_COUNTER_SK,
  STAGED_INDEX_SHARDS,
  STAGED_SK,
  STAGED_STATUSES,
  STAGING_APP_MARKER_SK,
  STAGING_APPS_INDEX_PARTITION,
  shardOf,
  stagedCounterPartition,
  stagedStatusIndexPartition,
  stagedStatusIndexSortKey,
  stagedStatusIndexSortKeyBefore,
  stagedUserPartition,
  stagingAppMarkerPartition,
} from './keys/staging.js';
import { queryAll, queryPages } from './query.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Item = Record<string, unknown>;

const ENTITY = 'BULK_IMPORT_USER';
const COUNTER_ENTITY = 'BULK_IMPORT_COUNTER';
/** Rows per transaction: 100 actions at most, one of them the counter update. */
const ROWS_PER_TRANSACTION = 99;
/** Transactions (or queries) in flight per request: bounded, so one request cannot flood a partition. */
const PARALLELISM = 8;

const rowKey = (appId: string, id: string) => ({ PK: stagedUserPartition(appId, id), SK: STAGED_SK });
const counterKey = (appId: string, shard: number) => ({
  PK: stagedCounterPartition(appId, shard),
  SK: STAGED_COUNTER_SK,
});
const indexShard = (id: string) => shardOf(id, STAGED_INDEX_SHARDS);
const counterShard = (id: string) => shardOf(id, STAGED_COUNTER_SHARDS);

// ------------------------------------------------------------------------------------------------
// Helpers

/** Runs `work` over `items` with at most `limit` in flight. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(runners);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

type TransactResult = { ok: true } | { ok: false; conditionFailed: number[] };

/**
 * One atomic write. Conflicts and throttling are retried with the SAME client request token, so
 * a retry of an attempt that did commit (lost answer) succeeds without writing twice. Condition
 * failures are returned by action index.
 */
async function transact(items: TransactItem[]): Promise<TransactResult> {
  const token = randomUUID();
  for (let attempt = 0; ; attempt++) {
    try {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: token }));
      return { ok: true };
    } catch (error) {
      const cancellation = classifyCancellation(error);
      if (cancellation.kind === 'conditions') return { ok: false, conditionFailed: [...cancellation.failedIndexes] };
      const retryable = cancellation.kind === 'transient' || (cancellation.kind === 'none' && isTransientError(error));
      if (!retryable || attempt >= 7) throw error;
      await sleep(Math.min(2000, 20 * 2 ** attempt) * (0.5 + Math.random()));
    }
  }
}

function counterUpdate(appId: string, shard: number, deltas: Partial<Record<StagedStatus, number>>): TransactItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':e': COUNTER_ENTITY, ':a': appId };
  const parts: string[] = [];
  for (const status of STAGED_STATUSES) {
    const delta = deltas[status] ?? 0;
    if (delta === 0) continue;
    names[`#${status}`] = status;
    values[`:${status}`] = delta;
    parts.push(`#${status} :${status}`);
  }
  return {
    Update: {
      TableName: tableName(),
      Key: counterKey(appId, shard),
      UpdateExpression: `SET entityType = :e, appId = :a ADD ${parts.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

function newRowItem(appId: string, user: ImportUser, now: number): Item {
  const shard = indexShard(user.id);
  return {
    ...rowKey(appId, user.id),
    entityType: ENTITY,
    appId,
    id: user.id,
    status: 'NEW',
    // JSON text: keeps the reference's key order and any metadata shape DynamoDB maps cannot hold.
    user: JSON.stringify(user),
    createdAt: now,
    updatedAt: now,
    sentAt: now,
    GSI1PK: stagedStatusIndexPartition(appId, 'NEW', shard),
    GSI1SK: stagedStatusIndexSortKey(now, user.id),
  };
}

function fromItem(item: Item): StagedUserRecord {
  return {
    appId: item.appId as string,
    id: item.id as string,
    status: item.status as StagedStatus,
    user: JSON.parse(item.user as string) as ImportUser,
    ...(typeof item.errorMessage === 'string' ? { errorMessage: item.errorMessage } : {}),
    ...(typeof item.lastError === 'string' ? { lastError: item.lastError } : {}),
    createdAt: item.createdAt as number,
    updatedAt: item.updatedAt as number,
    sentAt: item.sentAt as number,
  };
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function groupBy<T>(items: readonly T[], key: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

async function getRow(appId: string, id: string): Promise<Item | undefined> {
  const out = await getDocumentClient().send(
    new GetCommand({ TableName: tableName(), Key: rowKey(appId, id), ConsistentRead: true }),
  );
  return out.Item;
}

/** Consistent reads of rows by id (missing rows are absent); only `id` and `status` unless `full`. */
async function batchGetRows(appId: string, ids: readonly string[], full = false): Promise<Item[]> {
  const table = tableName();
  const found: Item[] = [];
  for (const part of chunk(ids, 100)) {
    let keys: Item[] = part.map((id) => rowKey(appId, id));
    for (let attempt = 0; keys.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 20 * 2 ** attempt));
      if (attempt > 10) throw new Error('DynamoDB kept returning unprocessed keys');
      const out = await getDocumentClient().send(
        new BatchGetCommand({
          RequestItems: {
            [table]: {
              Keys: keys,
              ConsistentRead: true,
              ...(full
                ? {}
                : { ProjectionExpression: '#i, #s', ExpressionAttributeNames: { '#i': 'id', '#s': 'status' } }),
            },
          },
        }),
      );
      found.push(...((out.Responses?.[table] as Item[] | undefined) ?? []));
      keys = (out.UnprocessedKeys?.[table]?.Keys as Item[] | undefined) ?? [];
    }
  }
  return found;
}

// ------------------------------------------------------------------------------------------------
// Writes

const markerKey = (appId: string) => ({ PK: stagingAppMarkerPartition(appId), SK: STAGING_APP_MARKER_SK });

/**
 * A staging request takes well under this (API Gateway answers within 30 s): a marker older than
 * this whose app has nothing pending belongs to no request still writing rows.
 */
const MARKER_QUIET_MS = 10 * 60_000;

async function insertNew(appId: string, users: readonly ImportUser[], now: number): Promise<{ collidedIds: string[] }> {
  // Before any row: the reconciler must know this app has rows to look after.
  await getDocumentClient().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...markerKey(appId),
        entityType: 'BULK_IMPORT_APP',
        appId,
        stagedAt: now,
        GSI2PK: STAGING_APPS_INDEX_PARTITION,
        GSI2SK: appId,
      },
    }),
  );
  const collided: string[] = [];
  const groups = [...groupBy(users, (u) => counterShard(u.id)).entries()];
  // Each counter shard's chunks run one after another (no transaction conflicts on the counter
  // item within one request); shards run in parallel, bounded.
  await forEachLimited(groups, PARALLELISM, async ([shard, group]) => {
    for (const part of chunk(group, ROWS_PER_TRANSACTION)) {
      let pending = part;
      while (pending.length > 0) {
        const items: TransactItem[] = pending.map((user) => ({
          Put: {
            TableName: tableName(),
            Item: newRowItem(appId, user, now),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        }));
        items.push(counterUpdate(appId, shard, { NEW: pending.length }));
        const result = await transact(items);
        if (result.ok) break;
        const taken = new Set(result.conditionFailed.map((i) => pending[i]?.id));
        collided.push(...pending.filter((u) => taken.has(u.id)).map((u) => u.id));
        pending = pending.filter((u) => !taken.has(u.id));
      }
    }
  });
  return { collidedIds: collided };
}

const claimUpdate = (appId: string, id: string, now: number): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: rowKey(appId, id),
    UpdateExpression: 'SET #s = :p, updatedAt = :now, GSI1PK = :g',
    ConditionExpression: 'attribute_exists(PK) AND #s = :n',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: {
      ':p': 'PROCESSING',
      ':n': 'NEW',
      ':now': now,
      ':g': stagedStatusIndexPartition(appId, 'PROCESSING', indexShard(id)),
    },
  },
});

async function claim(appId: string, id: string, now: number): Promise<StagedUserRecord | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const item = await getRow(appId, id);
    if (!item) return undefined;
    const row = fromItem(item);
    if (row.status === 'FAILED') return undefined;
    if (row.status === 'PROCESSING') return row;
    const result = await transact([
      claimUpdate(appId, id, now),
      counterUpdate(appId, counterShard(id), { NEW: -1, PROCESSING: 1 }),
    ]);
    if (result.ok) return { ...row, status: 'PROCESSING', updatedAt: now };
  }
  throw new Error('the staged row kept changing while being claimed');
}

/**
 * {@link claim} for a worker's whole batch: one consistent batch read, then the NEW rows move to
 * PROCESSING in one transaction with ONE counter update (NEW −k, PROCESSING +k on one shard;
 * counts are sums over shards). If any of them changed meanwhile, nothing was written and each is
 * claimed on its own.
 */
async function claimMany(
  appId: string,
  ids: readonly string[],
  now: number,
): Promise<Map<string, StagedUserRecord | undefined>> {
  const unique = [...new Set(ids)];
  const found = new Map((await batchGetRows(appId, unique, true)).map((i) => [i.id as string, fromItem(i)] as const));
  const out = new Map<string, StagedUserRecord | undefined>();
  const fresh: StagedUserRecord[] = [];
  for (const id of unique) {
    const row = found.get(id);
    if (row?.status === 'NEW') fresh.push(row);
    else out.set(id, row?.status === 'PROCESSING' ? row : undefined);
  }
  for (const part of chunk(fresh, ROWS_PER_TRANSACTION)) {
    const first = part[0] as StagedUserRecord;
    const result = await transact([
      ...part.map((r) => claimUpdate(appId, r.id, now)),
      counterUpdate(appId, counterShard(first.id), { NEW: -part.length, PROCESSING: part.length }),
    ]);
    if (result.ok) {
      for (const r of part) out.set(r.id, { ...r, status: 'PROCESSING', updatedAt: now });
      continue;
    }
    for (const r of part) out.set(r.id, await claim(appId, r.id, now));
  }
  return out;
}

async function fail(
  appId: string,
  id: string,
  from: 'NEW' | 'PROCESSING',
  message: string,
  now: number,
): Promise<boolean> {
  const result = await transact([
    {
      Update: {
        TableName: tableName(),
        Key: rowKey(appId, id),
        UpdateExpression: 'SET #s = :f, errorMessage = :m, updatedAt = :now, GSI1PK = :g',
        ConditionExpression: 'attribute_exists(PK) AND #s = :from',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':f': 'FAILED',
          ':m': message,
          ':now': now,
          ':from': from,
          ':g': stagedStatusIndexPartition(appId, 'FAILED', indexShard(id)),
        },
      },
    },
    counterUpdate(appId, counterShard(id), { [from]: -1, FAILED: 1 }),
  ]);
  return result.ok;
}

function isConditionFailure(error: unknown): boolean {
  return (error as AwsError).name === 'ConditionalCheckFailedException';
}

async function noteTransientError(appId: string, id: string, message: string, now: number): Promise<void> {
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: rowKey(appId, id),
        UpdateExpression: 'SET lastError = :m, lastErrorAt = :now',
        ConditionExpression: 'attribute_exists(PK) AND #s IN (:n, :p)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':m': message, ':now': now, ':n': 'NEW', ':p': 'PROCESSING' },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Deletes of these PROCESSING rows and ONE counter update for all of them (one shard carries it). */
function importedWrites(appId: string, ids: readonly string[]): object[] {
  if (ids.length === 0) return [];
  return [
    ...ids.map((id) => ({
      Delete: {
        TableName: tableName(),
        Key: rowKey(appId, id),
        ConditionExpression: '#s = :p',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':p': 'PROCESSING' },
      },
    })),
    counterUpdate(appId, counterShard(ids[0] as string), { PROCESSING: -ids.length }),
  ];
}

async function removeImported(appId: string, id: string): Promise<boolean> {
  const result = await transact(importedWrites(appId, [id]) as TransactItem[]);
  return result.ok;
}

async function remove(appId: string, ids: readonly string[]): Promise<Set<string>> {
  const deleted = new Set<string>();
  let pending = [...new Set(ids)];
  for (let round = 0; round < 5 && pending.length > 0; round++) {
    const rows = (await batchGetRows(appId, pending)).map((i) => ({
      id: i.id as string,
      status: i.status as StagedStatus,
    }));
    const retry: string[] = [];
    const groups = [...groupBy(rows, (r) => counterShard(r.id)).entries()];
    await forEachLimited(groups, PARALLELISM, async ([shard, group]) => {
      for (const part of chunk(group, ROWS_PER_TRANSACTION)) {
        const deltas: Partial<Record<StagedStatus, number>> = {};
        for (const r of part) deltas[r.status] = (deltas[r.status] ?? 0) - 1;
        const items: TransactItem[] = part.map((r) => ({
          Delete: {
            TableName: tableName(),
            Key: rowKey(appId, r.id),
            ConditionExpression: '#s = :s',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':s': r.status },
          },
        }));
        items.push(counterUpdate(appId, shard, deltas));
        const result = await transact(items);
        if (result.ok) for (const r of part) deleted.add(r.id);
        // A row changed status (or was imported) meanwhile: read it again next round.
        else retry.push(...part.map((r) => r.id));
      }
    });
    pending = retry;
  }
  return deleted;
}

async function markSent(appId: string, id: string, now: number): Promise<void> {
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: rowKey(appId, id),
        UpdateExpression: 'SET sentAt = :now',
        ConditionExpression: 'attribute_exists(PK) AND #s IN (:n, :p)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':now': now, ':n': 'NEW', ':p': 'PROCESSING' },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

// ------------------------------------------------------------------------------------------------
// Reads

/** One index partition read newest first, page by page, on demand. */
class ShardCursor {
  private buffer: Item[] = [];
  private startKey: Item | undefined;
  private done = false;

  constructor(
    private readonly pk: string,
    private readonly upTo: string | undefined,
    private readonly pageSize: number,
  ) {}

  async head(): Promise<Item | undefined> {
    while (this.buffer.length === 0 && !this.done) await this.fetch();
    return this.buffer[0];
  }

  take(): Item | undefined {
    return this.buffer.shift();
  }

  private async fetch(): Promise<void> {
    const out: QueryCommandOutput = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: this.upTo === undefined ? 'GSI1PK = :pk' : 'GSI1PK = :pk AND GSI1SK <= :upTo',
        ExpressionAttributeValues: { ':pk': this.pk, ...(this.upTo === undefined ? {} : { ':upTo': this.upTo }) },
        ScanIndexForward: false,
        Limit: this.pageSize,
        ExclusiveStartKey: this.startKey,
      }),
    );
    this.buffer.push(...((out.Items as Item[] | undefined) ?? []));
    this.startKey = out.LastEvaluatedKey;
    if (!this.startKey) this.done = true;
  }
}

/**
 * Newest first across the index shards (of one status, or of all three): a k-way merge of
 * per-shard cursors that each read small pages only as far as the page needs.
 */
async function list(
  appId: string,
  query: { status?: StagedStatus; limit: number; from?: StagedCursor },
): Promise<{ rows: StagedUserRecord[]; next?: StagedCursor }> {
  const statuses = query.status ? [query.status] : [...STAGED_STATUSES];
  const partitions = statuses.flatMap((s) =>
    Array.from({ length: STAGED_INDEX_SHARDS }, (_, shard) => stagedStatusIndexPartition(appId, s, shard)),
  );
  const upTo = query.from ? stagedStatusIndexSortKey(query.from.createdAt, query.from.id) : undefined;
  const wanted = query.limit + 1;
  const pageSize = Math.min(wanted, Math.max(10, Math.ceil((wanted * 2) / partitions.length)));
  const cursors = partitions.map((pk) => new ShardCursor(pk, upTo, pageSize));
  const heads = new Array<Item | undefined>(cursors.length);
  await forEachLimited(
    cursors.map((_, i) => i),
    16,
    async (i) => {
      heads[i] = await (cursors[i] as ShardCursor).head();
    },
  );
  const picked: Item[] = [];
  while (picked.length < wanted) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i];
      if (head === undefined) continue;
      if (best < 0 || (head.GSI1SK as string) > ((heads[best] as Item).GSI1SK as string)) best = i;
    }
    if (best < 0) break;
    const cursor = cursors[best] as ShardCursor;
    picked.push(cursor.take() as Item);
    heads[best] = await cursor.head();
  }
  const rows = picked.slice(0, query.limit).map(fromItem);
  const nextItem = picked[query.limit];
  return nextItem ? { rows, next: { createdAt: nextItem.createdAt as number, id: nextItem.id as string } } : { rows };
}

async function count(appId: string, status?: StagedStatus): Promise<number> {
  return countOf(appId, status ? [status] : STAGED_STATUSES);
}

/** Rows of these statuses, from one consistent read of the counter shards. */
async function countOf(appId: string, statuses: readonly StagedStatus[]): Promise<number> {
  const table = tableName();
  let keys: Item[] = Array.from({ length: STAGED_COUNTER_SHARDS }, (_, shard) => counterKey(appId, shard));
  let total = 0;
  for (let attempt = 0; keys.length > 0; attempt++) {
    if (attempt > 0) await sleep(Math.min(1000, 20 * 2 ** attempt));
    if (attempt > 10) throw new Error('DynamoDB kept returning unprocessed keys');
    const out = await getDocumentClient().send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }),
    );
    for (const item of (out.Responses?.[table] as Item[] | undefined) ?? []) {
      for (const s of statuses) total += Number(item[s] ?? 0);
    }
    keys = (out.UnprocessedKeys?.[table]?.Keys as Item[] | undefined) ?? [];
  }
  return total;
}

/**
 * The reconciler's read: per marked app (GSI2 `BULK#APPS`) that still has NEW/PROCESSING rows
 * (its counters say so), the GSI1 partitions of those two statuses, keeping rows last sent before
 * the cut-off. Reads are cheap next to writes (a Query is billed per 4 KB read, a row is under
 * 1 KB), so rows carry no index entry of their own for this — that would cost an index write when
 * staged, claimed and imported. A marker whose app has nothing pending and that no recent request
 * refreshed is removed (conditionally on its time, so a request staging now keeps it).
 */
async function pendingSentBefore(
  sentBefore: number,
  visit: (page: readonly PendingRef[]) => Promise<void>,
): Promise<void> {
  const markers = await queryAll({
    TableName: tableName(),
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :pk',
    ExpressionAttributeValues: { ':pk': STAGING_APPS_INDEX_PARTITION },
    ProjectionExpression: 'appId, stagedAt',
  });
  for (const marker of markers) {
    const appId = marker.appId as string;
    const stagedAt = marker.stagedAt as number;
    if ((await countOf(appId, ['NEW', 'PROCESSING'])) === 0) {
      if (stagedAt < Date.now() - MARKER_QUIET_MS) await removeMarker(appId, stagedAt);
      continue;
    }
    const partitions = (['NEW', 'PROCESSING'] as const).flatMap((status) =>
      Array.from({ length: STAGED_INDEX_SHARDS }, (_, shard) => stagedStatusIndexPartition(appId, status, shard)),
    );
    await forEachLimited(partitions, 4, async (pk) => {
      for await (const items of queryPages({
        TableName: tableName(),
        IndexName: 'GSI1',
        // A row is created no later than its last send: only rows created before the cut-off are read.
        KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :created',
        FilterExpression: 'sentAt < :before',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':created': stagedStatusIndexSortKeyBefore(sentBefore),
          ':before': sentBefore,
        },
        ProjectionExpression: 'appId, #i',
        ExpressionAttributeNames: { '#i': 'id' },
      })) {
        if (items.length > 0) await visit(items.map((i) => ({ appId: i.appId as string, id: i.id as string })));
      }
    });
  }
}

async function removeMarker(appId: string, stagedAt: number): Promise<void> {
  try {
    await getDocumentClient().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: markerKey(appId),
        ConditionExpression: 'stagedAt = :t',
        ExpressionAttributeValues: { ':t': stagedAt },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

// ------------------------------------------------------------------------------------------------
// App deletion

async function deleteKeys(keys: readonly Item[]): Promise<void> {
  const table = tableName();
  for (const part of chunk(keys, 25)) {
    let requests: Item[] = part.map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
      if (attempt > 10) throw new Error('DynamoDB kept refusing deletes');
      const out = await getDocumentClient().send(
        new BatchWriteCommand({ RequestItems: { [table]: requests as never } }),
      );
      requests = (out.UnprocessedItems?.[table] as Item[] | undefined) ?? [];
    }
  }
}

/** Deletes every staged row of the app (by Query on its GSI1 shards) and its counters. */
export async function purgeAppStagedUsers(appId: string): Promise<void> {
  const partitions = STAGED_STATUSES.flatMap((s) =>
    Array.from({ length: STAGED_INDEX_SHARDS }, (_, shard) => stagedStatusIndexPartition(appId, s, shard)),
  );
  await forEachLimited(partitions, 4, async (pk) => {
    for await (const items of queryPages({
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: 'PK, SK',
    })) {
      await deleteKeys(items.map((i) => ({ PK: i.PK, SK: i.SK })));
    }
  });
  await deleteKeys([
    ...Array.from({ length: STAGED_COUNTER_SHARDS }, (_, shard) => counterKey(appId, shard)),
    markerKey(appId),
  ]);
}

export const stagingStore: StagingStore = {
  insertNew,
  get: async (appId, id) => {
    const item = await getRow(appId, id);
    return item ? fromItem(item) : undefined;
  },
  claim,
  claimMany,
  fail,
  noteTransientError,
  importedWrites,
  removeImported,
  remove,
  list,
  count,
  pendingSentBefore,
  markSent,
};
