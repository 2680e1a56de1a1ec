/**
 * Inserting staged rows (`POST /bulk-import/users`): NEW rows with their counter shares, in the
 * transactions of shard-writes.ts; the undo of a plain insert that cannot finish; and the keyed
 * insert of a request remembered under an Idempotency-Key, whose groups each commit with a marker.
 */
import type { StagingOnce } from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportUser } from '#functions/domain/bulk-import/types.js';
import type { SealingKey } from '../crypto/envelope.js';
import { chunkMarkerPut, readChunkMarker } from '../idempotency-store.js';
import { putItem, type Table, type TransactItem, timeLeftMs, transact, withRetryPolicy } from '../kit/index.js';
import { counterUpdate, newRowItem, ROWS_PER_TRANSACTION, stagingMarker } from './rows.js';
import type { StagedCredentials } from './sealing.js';
import { deleteRows, inShardTransactions } from './shard-writes.js';

/**
 * Of the time a staging request has left for retries, the share kept for undoing its rows when the
 * writes cannot finish (throttling): the writes retry until the rest is used up.
 */
const UNDO_SHARE = 0.4;

/** Where a staging call writes: the rows' table, the markers' (the base table), the rows' sealing. */
export interface StagingTarget {
  readonly table: Table;
  readonly markers: Table;
  readonly sealing: StagedCredentials;
}

/** What a staging call's row writes share: the data key sealing its rows, and the writes' retry deadline. */
interface StagingWrite {
  readonly key: SealingKey | undefined;
  readonly deadline: number | undefined;
}

/**
 * Before any row: the app's staging marker (the reconciler must know this app has rows to look
 * after, and where) and one data key for this call's rows (stored before any row names it; a
 * repeat may seal the rows it writes under another: each row names its own). The writes then
 * retry within the request's time, less the {@link UNDO_SHARE}.
 */
async function beginStaging(
  { table, markers, sealing }: StagingTarget,
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
async function writeNewRows(
  { table, sealing }: StagingTarget,
  appId: string,
  shard: number,
  rows: readonly ImportUser[],
  now: number,
  write: StagingWrite,
  extra: ((taken: readonly string[]) => TransactItem) | undefined,
  stop: () => boolean,
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
 * their counter shares, {@link discardNew}) before the error is thrown, so a failed request leaves
 * nothing staged that a retry would stage twice. The deletion is best effort within what is left
 * of the budget; whatever it could not delete is logged by id by the caller's error path.
 */
export async function insertNew(
  target: StagingTarget,
  appId: string,
  users: readonly ImportUser[],
  now: number,
): Promise<{ collidedIds: string[] }> {
  const write = await beginStaging(target, appId, users, now);
  const collided: string[] = [];
  try {
    await inShardTransactions(
      users,
      (u) => u.id,
      ROWS_PER_TRANSACTION,
      async (shard, part, _index, stopped) => {
        const { taken } = await writeNewRows(target, appId, shard, part, now, write, undefined, stopped);
        collided.push(...taken);
      },
    );
  } catch (error) {
    await discardNew(
      target.table,
      appId,
      users.map((u) => u.id),
      now,
    ).catch(() => undefined);
    throw error;
  }
  return { collidedIds: collided };
}

/**
 * The undo of {@link insertNew}: deletes the NEW rows among `ids` that were staged at `stagedAt`
 * (by this request: ids are fresh and no message was sent for them yet), with their counter
 * shares. Rows another request wrote under a colliding id are left alone.
 */
function discardNew(table: Table, appId: string, ids: readonly string[], stagedAt: number): Promise<Set<string>> {
  return deleteRows(table, appId, ids, {
    rounds: { attempts: 3, exhausted: 'the rows of a failed staging request kept changing while being undone' },
    which: (row) => row.status === 'NEW' && row.createdAt === stagedAt,
    stagedAt,
  });
}

/** Rows per transaction of the keyed insert: one action of the 100 is the group's marker. */
const ROWS_PER_MARKED_TRANSACTION = ROWS_PER_TRANSACTION - 1;

/**
 * Staging under an Idempotency-Key: the rows of a request go in the same groups as `insertNew`
 * writes them (by counter shard, in request order, a fixed number per transaction), and each
 * group's transaction also Puts the group's marker (idempotency-store.ts) on condition that it
 * does not exist. A transaction commits all of its rows, its counter share and its marker, or
 * nothing; so after a crash anywhere, a repeat with the same users (same ids) writes exactly the
 * groups that did not commit — even when rows of the groups that did were imported (deleted)
 * since — and learns from the markers which ids those groups found taken. Nothing is undone.
 */
export async function insertNewOnce(
  target: StagingTarget,
  appId: string,
  users: readonly ImportUser[],
  now: number,
  once: StagingOnce,
): Promise<{ collidedIds: string[] }> {
  const write = await beginStaging(target, appId, users, now);
  const { table } = target;
  const collided: string[] = [];
  await inShardTransactions(
    users,
    (u) => u.id,
    ROWS_PER_MARKED_TRANSACTION,
    async (shard, rows, part, stopped) => {
      const marker = (taken: readonly string[]) => chunkMarkerPut(table, appId, once, shard, part, taken);
      const { taken, extraFailed } = await writeNewRows(target, appId, shard, rows, now, write, marker, stopped);
      // The marker exists: an earlier attempt committed this group, and what it found taken then
      // is what is taken now.
      collided.push(...(extraFailed ? ((await readChunkMarker(table, appId, once, shard, part)) ?? []) : taken));
    },
  );
  return { collidedIds: collided };
}
