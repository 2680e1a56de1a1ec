/**
 * Inserting staged rows (`POST /bulk-import/users`): NEW rows with their counter shares, in the
 * transactions of shard-writes.ts, each group of rows committing with a marker of its own, so a
 * request that stopped anywhere — its time ran out, the table kept refusing, the core died — is
 * finished by its repeat group by group, and nothing is staged twice.
 */
import type { StagingOnce, StagingPace } from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import type { SealingKey } from '../crypto/envelope.js';
import { chunkMarkerPut, markChunkSent, readChunkMarker, readChunkMarkers } from '../idempotency-store.js';
import { putItem, type Table, type TransactItem, timeLeftMs, transact, withRetryPolicy } from '../kit/index.js';
import { counterUpdate, newRowItem, ROWS_PER_TRANSACTION, stagingMarker } from './rows.js';
import type { StagedCredentials } from './sealing.js';
import { inShardTransactions } from './shard-writes.js';

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
 * Before the first row a call writes: the app's staging marker (the reconciler must know this app
 * has rows to look after, and where) and one data key for this call's rows (stored before any row
 * names it; a repeat may seal the rows it writes under another: each row names its own). The
 * writes then retry within the request's time.
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
  return { key, deadline: Number.isFinite(left) ? Date.now() + left : undefined };
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
  extra: (taken: readonly string[]) => TransactItem,
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
    items.push(extra(taken));
    const result = await withRetryPolicy(write.deadline === undefined ? {} : { deadline: write.deadline }, () =>
      transact(table, items),
    );
    if (result.ok) break;
    if (result.failedIndexes.includes(extraIndex)) return { taken, extraFailed: true };
    const failed = new Set(result.failedIndexes.flatMap((i) => pending[i]?.id ?? []));
    if (failed.size === 0) throw new Error('a staging transaction failed on a condition of no row');
    taken.push(...pending.filter((u) => failed.has(u.id)).map((u) => u.id));
    pending = pending.filter((u) => !failed.has(u.id));
  }
  return { taken, extraFailed: false };
}

/** Rows per transaction of the insert: one action of the 100 is the group's marker. */
const ROWS_PER_MARKED_TRANSACTION = ROWS_PER_TRANSACTION - 1;

/**
 * Stages one round of a request: its rows go in groups (by counter shard, in request order, a
 * fixed number per transaction), and each group's transaction also Puts the group's marker
 * (idempotency-store.ts) on condition that it does not exist. A transaction commits all of its
 * rows, its counter share and its marker, or nothing. Once a group has committed, `pace.send`
 * sends its users' import messages and the marker records that they were sent.
 *
 * So a repeat with the same users (same ids: the ids derive from the request's claim) reads the
 * markers first and does exactly what is left: nothing for a group committed and sent, the
 * messages for a group committed but not sent, everything for a group without a marker — even
 * when rows of the groups that did commit were imported (deleted) since — and learns from the
 * markers which ids those groups found taken. Nothing is undone.
 *
 * No group starts once `pace.mayStart()` says no (the request's time is running out): the call
 * then returns with `complete` false, the groups done kept.
 */
export async function insertNewOnce(
  target: StagingTarget,
  appId: string,
  users: readonly ImportUser[],
  now: number,
  once: StagingOnce,
  pace: StagingPace,
): Promise<{ collidedIds: string[]; complete: boolean }> {
  const { table } = target;
  const known = await readChunkMarkers(table, appId, once);
  let begun: Promise<StagingWrite> | undefined;
  const collided: string[] = [];
  let complete = true;
  await inShardTransactions(
    users,
    (u) => u.id,
    ROWS_PER_MARKED_TRANSACTION,
    async (shard, rows, part, stopped) => {
      const marker = known.get(`${shard}#${part}`);
      if (marker?.sent) {
        collided.push(...marker.collided);
        pace.doneBefore(rows.length - marker.collided.length);
        return;
      }
      if (!pace.mayStart()) {
        complete = false;
        return;
      }
      const started = Date.now();
      let taken = marker?.collided;
      if (taken === undefined) {
        begun ??= beginStaging(target, appId, users, now);
        const write = await begun;
        const put = (found: readonly string[]) => chunkMarkerPut(table, appId, once, shard, part, found);
        const result = await writeNewRows(target, appId, shard, rows, now, write, put, stopped);
        // The marker exists: another attempt committed this group meanwhile, and what it found
        // taken then is what is taken now.
        taken = result.extraFailed ? ((await readChunkMarker(table, appId, once, shard, part)) ?? []) : result.taken;
      }
      const takenIds = new Set(taken);
      const staged = rows.filter((u) => !takenIds.has(u.id)).map((u) => u.id);
      await pace.send(staged);
      await markChunkSent(table, appId, once, shard, part);
      collided.push(...taken);
      pace.done(staged.length, Date.now() - started);
    },
  );
  return { collidedIds: collided, complete };
}
