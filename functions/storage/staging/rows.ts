/**
 * The items of the staged-users store (keys: ../keys/staging.ts, layout: docs/architecture.md "Data model"):
 * the staged row, its per-status counter shards and the app's staging marker, each declared once
 * with its key and index entries.
 */
import type {
  ClaimedRow,
  ClearImportUser,
  StagedRow,
  StagedStatus,
} from '#functions/domain/bulk-import/staging-ports.js';
import { STAGED_STATUS_VALUES } from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import {
  STAGED_COUNTER_SHARDS,
  STAGED_COUNTER_SK,
  STAGED_INDEX_SHARDS,
  STAGED_SK,
  STAGING_APP_MARKER_SK,
  STAGING_APPS_INDEX_PARTITION,
  stagedCounterPartition,
  stagedStatusIndexPartition,
  stagedStatusIndexSortKey,
  stagedUserPartition,
  stagingAppMarkerPartition,
} from '../keys/staging.js';
import { defineEntity, type Item, shardOf, type Table, type TransactItem, updateExpression } from '../kit/index.js';
import { splitCredentials } from './credentials.js';

/** Rows per transaction: 100 actions at most, one of them the counter update. */
export const ROWS_PER_TRANSACTION = 99;
/** Transactions (or queries) in flight per request: bounded, so one request cannot flood a partition. */
export const PARALLELISM = 8;

const indexShard = (id: string) => shardOf(id, STAGED_INDEX_SHARDS);
export const counterShard = (id: string) => shardOf(id, STAGED_COUNTER_SHARDS);

/** One staged user: its own partition; GSI1 lists the rows of one status (sharded), newest first. */
export const stagedRow = defineEntity({
  type: 'BULK_IMPORT_USER',
  key: (r: { appId: string; id: string }) => ({ PK: stagedUserPartition(r.appId, r.id), SK: STAGED_SK }),
  indexes: {
    GSI1: {
      pk: (r: { appId: string; id: string; status: StagedStatus; createdAt: number }) =>
        stagedStatusIndexPartition(r.appId, r.status, indexShard(r.id)),
      sk: (r: { appId: string; id: string; status: StagedStatus; createdAt: number }) =>
        stagedStatusIndexSortKey(r.createdAt, r.id),
    },
  },
});

/** Per-status counts of one shard; changed in the same transaction as every status change. */
export const stagedCounter = defineEntity({
  type: 'BULK_IMPORT_COUNTER',
  key: (c: { appId: string; shard: number }) => ({
    PK: stagedCounterPartition(c.appId, c.shard),
    SK: STAGED_COUNTER_SK,
  }),
});

/**
 * An app that has (or recently had) staged rows, in the base table whatever table holds the rows
 * (it names that table); GSI2 lists the marked apps for the reconciler.
 */
export const stagingMarker = defineEntity({
  type: 'BULK_IMPORT_APP',
  key: (m: { appId: string }) => ({ PK: stagingAppMarkerPartition(m.appId), SK: STAGING_APP_MARKER_SK }),
  indexes: {
    GSI2: { pk: (_: { appId: string }) => STAGING_APPS_INDEX_PARTITION, sk: (m: { appId: string }) => m.appId },
  },
});

/** The GSI1 partitions of these statuses (every shard): what lists, scans and purges read. */
export function statusPartitions(appId: string, statuses: readonly StagedStatus[]): string[] {
  return statuses.flatMap((status) =>
    Array.from({ length: STAGED_INDEX_SHARDS }, (_, shard) => stagedStatusIndexPartition(appId, status, shard)),
  );
}

export const counterKeys = (appId: string) =>
  Array.from({ length: STAGED_COUNTER_SHARDS }, (_, shard) => stagedCounter.key({ appId, shard }));

/**
 * A NEW row as written by staging: `attributes` are the user's (sealing.ts: its clear JSON and its
 * sealed credentials).
 */
export function newRowItem(appId: string, user: ImportUser, now: number, attributes: Item): Item {
  return stagedRow.item(
    { appId, id: user.id },
    {
      appId,
      id: user.id,
      status: 'NEW',
      ...attributes,
      createdAt: now,
      updatedAt: now,
      sentAt: now,
    },
    { GSI1: { appId, id: user.id, status: 'NEW', createdAt: now } },
  );
}

/** A row's fields but its user, in the order the store has always returned them. */
function rowOf<U>(item: Item, user: U): Omit<StagedRow, 'user'> & { user: U } {
  return {
    appId: item.appId as string,
    id: item.id as string,
    status: item.status as StagedStatus,
    user,
    ...(typeof item.errorMessage === 'string' ? { errorMessage: item.errorMessage } : {}),
    ...(typeof item.lastError === 'string' ? { lastError: item.lastError } : {}),
    ...(item.lastErrorKind === 'backpressure' || item.lastErrorKind === 'error'
      ? { lastErrorKind: item.lastErrorKind }
      : {}),
    createdAt: item.createdAt as number,
    updatedAt: item.updatedAt as number,
    sentAt: item.sentAt as number,
  };
}

/**
 * A row as the status API and the DLQ consumer see it: the user WITHOUT its credentials (they stay
 * sealed; only the import worker opens them, see sealing.ts).
 */
export function fromItem(item: Item): StagedRow {
  // A row written before credentials were sealed carried them in its clear JSON: left out too.
  const stored = JSON.parse(item.user as string) as ImportUser | ClearImportUser;
  return rowOf(item, splitCredentials(stored).user);
}

/** A claimed row: `user` is the row's user with its credentials opened (sealing.ts openUser). */
export const claimedFromItem = (item: Item, user: ImportUser): ClaimedRow => rowOf(item, user);

/**
 * The row is in `status` (and, with `createdAt`, is the row staged then): the condition of every
 * status change and every deletion of a row.
 */
export const statusIs = (status: StagedStatus, createdAt?: number) => ({
  expression: `attribute_exists(PK) AND #st = :st${createdAt === undefined ? '' : ' AND #ca = :ca'}`,
  names: { '#st': 'status', ...(createdAt === undefined ? {} : { '#ca': 'createdAt' }) },
  values: { ':st': status, ...(createdAt === undefined ? {} : { ':ca': createdAt }) },
});

/** A transaction Delete of one row, if it is in `status`. */
export function deleteIfStatus(table: Table, appId: string, id: string, status: StagedStatus): TransactItem {
  const condition = statusIs(status);
  return {
    Delete: {
      TableName: table.name,
      Key: stagedRow.key({ appId, id }),
      ConditionExpression: condition.expression,
      ExpressionAttributeNames: condition.names,
      ExpressionAttributeValues: condition.values,
    },
  };
}

/** The update of one counter shard by per-status deltas (zero deltas left out). */
export function counterUpdate(
  table: Table,
  appId: string,
  shard: number,
  deltas: Partial<Record<StagedStatus, number>>,
): TransactItem {
  const add: Record<string, number> = {};
  for (const status of STAGED_STATUS_VALUES) {
    const delta = deltas[status] ?? 0;
    if (delta !== 0) add[status] = delta;
  }
  return {
    Update: {
      TableName: table.name,
      Key: stagedCounter.key({ appId, shard }),
      ...updateExpression({ entityType: stagedCounter.type, appId }, add),
    },
  };
}
