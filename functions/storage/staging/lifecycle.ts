/**
 * A staged row's life: NEW (staging) → PROCESSING (claimed by a worker) → deleted with its user's
 * import, or FAILED. Every status change and every deletion updates the row's counter shard in the
 * same transaction, so counts are exact; every change is conditioned on the row's current status,
 * so a concurrent writer can never make the counters drift.
 */
import type { StagedStatus, StagedUserRecord } from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportUser } from '#functions/domain/bulk-import/types.js';
import { UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import { logger } from '#functions/shared/logger.js';
import type { SealingKey } from '../crypto/envelope.js';
import {
  batchGetAll,
  chunk,
  forEachLimited,
  getItem,
  groupBy,
  type Item,
  putItem,
  type Table,
  type TransactItem,
  timeLeftMs,
  transact,
  updateExpression,
  updateItem,
  withRetryPolicy,
} from '../kit/index.js';
import { splitCredentials } from './credentials.js';
import {
  counterShard,
  counterUpdate,
  fromItem,
  newRowItem,
  PARALLELISM,
  ROWS_PER_TRANSACTION,
  stagedRow,
  stagingMarker,
} from './rows.js';
import {
  DATA_KEY_ATTRIBUTE,
  SEALED_ATTRIBUTE,
  type StagedCredentials,
  UNREADABLE_CREDENTIALS_MESSAGES,
} from './sealing.js';

/** The row exists in `status` (and, with `createdAt`, is the row staged then). */
const statusIs = (status: StagedStatus, createdAt?: number) => ({
  expression: `attribute_exists(PK) AND #st = :st${createdAt === undefined ? '' : ' AND #ca = :ca'}`,
  names: { '#st': 'status', ...(createdAt === undefined ? {} : { '#ca': 'createdAt' }) },
  values: { ':st': status, ...(createdAt === undefined ? {} : { ':ca': createdAt }) },
});
const pendingCondition = {
  expression: 'attribute_exists(PK) AND #st IN (:n, :p)',
  names: { '#st': 'status' },
  values: { ':n': 'NEW', ':p': 'PROCESSING' },
};

/** A transaction Update of one row, conditioned on its current status; `remove` attributes are deleted. */
function statusChange(
  table: Table,
  appId: string,
  id: string,
  from: StagedStatus,
  set: Item,
  remove: readonly string[] = [],
  createdAt?: number,
): TransactItem {
  const update = updateExpression(set);
  const condition = statusIs(from, createdAt);
  const removed = Object.fromEntries(remove.map((name, i) => [`#r${i}`, name]));
  const removal = remove.length > 0 ? ` REMOVE ${Object.keys(removed).join(', ')}` : '';
  return {
    Update: {
      TableName: table.name,
      Key: stagedRow.key({ appId, id }),
      UpdateExpression: `${update.UpdateExpression}${removal}`,
      ConditionExpression: condition.expression,
      ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...removed, ...condition.names },
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...condition.values },
    },
  };
}

/** A row moved to `status`: its GSI1 entry moves to that status's partition (same sort key). */
const moveTo = (appId: string, id: string, status: StagedStatus) =>
  stagedRow.indexPartition('GSI1', { appId, id, status, createdAt: 0 });

export async function getRow(table: Table, appId: string, id: string): Promise<StagedUserRecord | undefined> {
  const item = await getItem(table, stagedRow.key({ appId, id }));
  // The row read under this key is this app's row `id`, whatever its own attributes say.
  return item ? { ...fromItem(item), appId, id } : undefined;
}

/** Consistent reads of rows by id (missing rows are absent); only `id` and `status` unless `full`. */
async function readRows(table: Table, appId: string, ids: readonly string[], full = false): Promise<Item[]> {
  return batchGetAll(
    table,
    ids.map((id) => stagedRow.key({ appId, id })),
    full ? {} : { attributes: ['id', 'status'] },
  );
}

/**
 * Of the time a staging request has left for retries, the share kept for undoing its rows when the
 * writes cannot finish (throttling): the writes retry until the rest is used up.
 */
const UNDO_SHARE = 0.4;

/** What a staging call's row writes share: the data key sealing its rows, and the writes' retry deadline. */
export interface StagingWrite {
  readonly key: SealingKey | undefined;
  readonly deadline: number | undefined;
}

/**
 * Before any row: the app's staging marker (the reconciler must know this app has rows to look
 * after, and where) and one data key for this call's rows (stored before any row names it; a
 * repeat may seal the rows it writes under another: each row names its own). The writes then
 * retry within the request's time, less the {@link UNDO_SHARE}.
 */
export async function beginStaging(
  table: Table,
  markers: Table,
  sealing: StagedCredentials,
  appId: string,
  users: readonly ImportUser[],
  now: number,
): Promise<StagingWrite> {
  await putItem(
    markers,
    stagingMarker.item({ appId }, { appId, stagedAt: now, table: table.name }, { GSI2: { appId } }),
  );
  const key = await sealing.sealingKeyFor(appId, users);
  const left = timeLeftMs();
  return { key, deadline: Number.isFinite(left) ? Date.now() + left * (1 - UNDO_SHARE) : undefined };
}

/**
 * Writes `rows` (one counter shard's, one transaction's worth) as NEW with their counter share and
 * the action `extra` builds from the ids found taken so far, in one transaction; the rows whose id
 * is taken are dropped and the rest written again, until it commits or `stop` says so. Returns the
 * ids found taken, and whether `extra`'s condition failed instead (nothing of this call written).
 */
export async function writeNewRows(
  table: Table,
  sealing: StagedCredentials,
  appId: string,
  shard: number,
  rows: readonly ImportUser[],
  now: number,
  write: StagingWrite,
  extra?: (taken: readonly string[]) => TransactItem,
  stop: () => boolean = () => false,
): Promise<{ taken: string[]; extraFailed: boolean }> {
  let pending = rows;
  const taken: string[] = [];
  while (!stop()) {
    const items: TransactItem[] = pending.map((user) => ({
      Put: {
        TableName: table.name,
        Item: newRowItem(appId, user, now, sealing.rowAttributes(appId, user, write.key)),
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    }));
    if (pending.length > 0) items.push(counterUpdate(table, appId, shard, { NEW: pending.length }));
    const extraIndex = items.length;
    if (extra) items.push(extra(taken));
    if (items.length === 0) break;
    const result = await withRetryPolicy(write.deadline === undefined ? {} : { deadline: write.deadline }, () =>
      transact(table, items),
    );
    if (result.ok) break;
    if (extra && result.failedIndexes.includes(extraIndex)) return { taken, extraFailed: true };
    const failed = new Set(result.failedIndexes.flatMap((i) => pending[i]?.id ?? []));
    if (failed.size === 0) throw new Error('a staging transaction failed on a condition of no row');
    taken.push(...pending.filter((u) => failed.has(u.id)).map((u) => u.id));
    pending = pending.filter((u) => !failed.has(u.id));
  }
  return { taken, extraFailed: false };
}

/**
 * Writes the NEW rows, or none: when a write keeps failing (the table throttles beyond the
 * request's time budget, or anything else), the rows this call wrote are deleted again (with
 * their counter shares) before the error is thrown, so a failed request leaves nothing staged
 * that a retry would stage twice. The deletion is best effort within what is left of the budget;
 * whatever it could not delete is logged by id by the caller's error path.
 */
export async function insertNew(
  table: Table,
  markers: Table,
  sealing: StagedCredentials,
  appId: string,
  users: readonly ImportUser[],
  now: number,
): Promise<{ collidedIds: string[] }> {
  const write = await beginStaging(table, markers, sealing, appId, users, now);
  const collided: string[] = [];
  let failure: { error: unknown } | undefined;
  const failed = () => failure !== undefined;
  // Each counter shard's chunks run one after another (no transaction conflicts on the counter
  // item within one request); shards run in parallel, bounded. After a failure no transaction
  // starts, and the undo waits for those in flight.
  const groups = [...groupBy(users, (u) => counterShard(u.id)).entries()];
  await forEachLimited(groups, PARALLELISM, async ([shard, group]) => {
    for (const part of chunk(group, ROWS_PER_TRANSACTION)) {
      if (failed()) return;
      try {
        const { taken } = await writeNewRows(table, sealing, appId, shard, part, now, write, undefined, failed);
        collided.push(...taken);
      } catch (error) {
        failure ??= { error };
        return;
      }
    }
  });
  if (failure) {
    await discardNew(
      table,
      appId,
      users.map((u) => u.id),
      now,
    ).catch(() => undefined);
    throw failure.error;
  }
  return { collidedIds: collided };
}

/**
 * Deletes the NEW rows among `ids` that were staged at `stagedAt` (by this request: ids are fresh
 * and no message was sent for them yet), with their counter shares. Rows another request wrote
 * under a colliding id are left alone. Throws when the table keeps refusing the deletes.
 */
async function discardNew(table: Table, appId: string, ids: readonly string[], stagedAt: number): Promise<void> {
  let pending = [...new Set(ids)];
  for (let round = 0; round < 3 && pending.length > 0; round++) {
    const rows = (
      await batchGetAll(
        table,
        pending.map((id) => stagedRow.key({ appId, id })),
        { attributes: ['id', 'status', 'createdAt'] },
      )
    ).filter((i) => i.status === 'NEW' && i.createdAt === stagedAt);
    const retry: string[] = [];
    await forEachLimited(
      [...groupBy(rows, (r) => counterShard(r.id as string)).entries()],
      PARALLELISM,
      async ([shard, group]) => {
        for (const part of chunk(group, ROWS_PER_TRANSACTION)) {
          const items: TransactItem[] = part.map((r) => ({
            Delete: {
              TableName: table.name,
              Key: stagedRow.key({ appId, id: r.id as string }),
              ConditionExpression: '#st = :st AND createdAt = :t',
              ExpressionAttributeNames: { '#st': 'status' },
              ExpressionAttributeValues: { ':st': 'NEW', ':t': stagedAt },
            },
          }));
          items.push(counterUpdate(table, appId, shard, { NEW: -part.length }));
          if (!(await transact(table, items)).ok) retry.push(...part.map((r) => r.id as string));
        }
      },
    );
    pending = retry;
  }
}

const claimUpdate = (table: Table, appId: string, id: string, now: number) =>
  statusChange(table, appId, id, 'NEW', { status: 'PROCESSING', updatedAt: now, ...moveTo(appId, id, 'PROCESSING') });

/**
 * The row with its credentials opened for the import; undefined when they can never be opened —
 * the row is then FAILED (its credentials erased) with a message saying why, never retried.
 * `where` is the app and row id the caller claimed (the key it read): the row is bound to them,
 * whatever its own `appId` and `id` attributes say.
 */
async function opened(
  table: Table,
  sealing: StagedCredentials,
  item: Item,
  now: number,
  where: { readonly appId: string; readonly id: string },
): Promise<StagedUserRecord | undefined> {
  const claimed = (row: StagedUserRecord): StagedUserRecord => ({ ...row, appId: where.appId, id: where.id });
  try {
    return claimed(fromItem(item, await sealing.openUser(item, where)));
  } catch (error) {
    if (!(error instanceof UnreadableSecretError)) throw error;
    const row = claimed(fromItem(item));
    if (row.status === 'FAILED') return undefined;
    const message = UNREADABLE_CREDENTIALS_MESSAGES[error.reason];
    const failed = await fail(table, row, message, now);
    logger.warn('staged credentials cannot be decrypted; the row is FAILED', {
      appId: row.appId,
      id: row.id,
      reason: error.reason,
      failed,
    });
    return undefined;
  }
}

export async function claim(
  table: Table,
  sealing: StagedCredentials,
  appId: string,
  id: string,
  now: number,
): Promise<StagedUserRecord | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const item = await getItem(table, stagedRow.key({ appId, id }));
    if (!item || item.status === 'FAILED') return undefined;
    const row = await opened(table, sealing, item, now, { appId, id });
    if (!row) return undefined;
    if (row.status === 'PROCESSING') return row;
    const result = await transact(table, [
      claimUpdate(table, appId, id, now),
      counterUpdate(table, appId, counterShard(id), { NEW: -1, PROCESSING: 1 }),
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
export async function claimMany(
  table: Table,
  sealing: StagedCredentials,
  appId: string,
  ids: readonly string[],
  now: number,
): Promise<Map<string, StagedUserRecord | undefined>> {
  const unique = [...new Set(ids)];
  // Each item is bound to the id it was read under (its key), not to its own `id` attribute.
  const idOfKey = new Map(unique.map((id) => [stagedRow.key({ appId, id }).PK, id] as const));
  const items = (await readRows(table, appId, unique, true)).filter((i) => i.status !== 'FAILED');
  const rows = await Promise.all(
    items.flatMap((i) => {
      const id = idOfKey.get(i.PK as string);
      return id === undefined ? [] : [opened(table, sealing, i, now, { appId, id })];
    }),
  );
  const found = new Map(rows.flatMap((row) => (row ? [[row.id, row] as const] : [])));
  const out = new Map<string, StagedUserRecord | undefined>();
  const fresh: StagedUserRecord[] = [];
  for (const id of unique) {
    const row = found.get(id);
    if (row?.status === 'NEW') fresh.push(row);
    else out.set(id, row?.status === 'PROCESSING' ? row : undefined);
  }
  for (const part of chunk(fresh, ROWS_PER_TRANSACTION)) {
    const first = part[0] as StagedUserRecord;
    const result = await transact(table, [
      ...part.map((r) => claimUpdate(table, appId, r.id, now)),
      counterUpdate(table, appId, counterShard(first.id), { NEW: -part.length, PROCESSING: part.length }),
    ]);
    if (result.ok) {
      for (const r of part) out.set(r.id, { ...r, status: 'PROCESSING', updatedAt: now });
      continue;
    }
    for (const r of part) out.set(r.id, await claim(table, sealing, appId, r.id, now));
  }
  return out;
}

/**
 * The row → FAILED with `message`, the credentials erased in the same write: the sealed ones
 * removed, and the clear JSON written again from `row.user` without them (a row written before
 * credentials were sealed carried them there). `row` is the row as the caller read it: nothing is
 * read again. The write is conditioned on the row still being in `row.status` and still being
 * the row staged at `row.createdAt`, so a concurrent status change (or a removal) wins and false
 * is returned.
 */
export async function fail(table: Table, row: StagedUserRecord, message: string, now: number): Promise<boolean> {
  if (row.status === 'FAILED') return false;
  const { appId, id, status: from } = row;
  const result = await transact(table, [
    statusChange(
      table,
      appId,
      id,
      from,
      {
        status: 'FAILED',
        errorMessage: message,
        updatedAt: now,
        user: JSON.stringify(splitCredentials(row.user).user),
        ...moveTo(appId, id, 'FAILED'),
      },
      [SEALED_ATTRIBUTE, DATA_KEY_ATTRIBUTE],
      row.createdAt,
    ),
    counterUpdate(table, appId, counterShard(id), { [from]: -1, FAILED: 1 }),
  ]);
  return result.ok;
}

export async function noteTransientError(
  table: Table,
  appId: string,
  id: string,
  message: string,
  now: number,
  kind: 'backpressure' | 'error' = 'error',
): Promise<void> {
  await updateItem(
    table,
    stagedRow.key({ appId, id }),
    updateExpression({ lastError: message, lastErrorKind: kind, lastErrorAt: now }),
    pendingCondition,
  );
}

/**
 * The import's companion writes: deletes of these PROCESSING rows and ONE counter update for all
 * of them (one shard carries it). Composed into the user write's transaction by the user store.
 */
export function importedRowDeletes(table: Table, appId: string, ids: readonly string[]): TransactItem[] {
  if (ids.length === 0) return [];
  return [
    ...ids.map((id) => ({
      Delete: {
        TableName: table.name,
        Key: stagedRow.key({ appId, id }),
        ConditionExpression: '#st = :st',
        ExpressionAttributeNames: { '#st': 'status' },
        ExpressionAttributeValues: { ':st': 'PROCESSING' },
      },
    })),
    counterUpdate(table, appId, counterShard(ids[0] as string), { PROCESSING: -ids.length }),
  ];
}

export async function removeImported(table: Table, appId: string, id: string): Promise<boolean> {
  return (await transact(table, importedRowDeletes(table, appId, [id]))).ok;
}

export async function remove(table: Table, appId: string, ids: readonly string[]): Promise<Set<string>> {
  const deleted = new Set<string>();
  let pending = [...new Set(ids)];
  for (let round = 0; round < 5 && pending.length > 0; round++) {
    const rows = (await readRows(table, appId, pending)).map((i) => ({
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
            TableName: table.name,
            Key: stagedRow.key({ appId, id: r.id }),
            ConditionExpression: '#st = :st',
            ExpressionAttributeNames: { '#st': 'status' },
            ExpressionAttributeValues: { ':st': r.status },
          },
        }));
        items.push(counterUpdate(table, appId, shard, deltas));
        const result = await transact(table, items);
        if (result.ok) for (const r of part) deleted.add(r.id);
        // A row changed status (or was imported) meanwhile: read it again next round.
        else retry.push(...part.map((r) => r.id));
      }
    });
    pending = retry;
  }
  return deleted;
}

export async function markSent(table: Table, appId: string, id: string, now: number): Promise<void> {
  await updateItem(table, stagedRow.key({ appId, id }), updateExpression({ sentAt: now }), pendingCondition);
}
