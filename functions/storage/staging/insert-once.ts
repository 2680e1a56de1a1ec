/**
 * Staging under an Idempotency-Key: the rows of a request go in the same groups as `insertNew`
 * writes them (by counter shard, in request order, a fixed number per transaction), and each
 * group's transaction also Puts the group's marker (idempotency-store.ts) on condition that it
 * does not exist. A transaction commits all of its rows, its counter share and its marker, or
 * nothing; so after a crash anywhere, a repeat with the same users (same ids) writes exactly the
 * groups that did not commit — even when rows of the groups that did were imported (deleted)
 * since — and learns from the markers which ids those groups found taken.
 */
import type { StagingOnce } from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportUser } from '#functions/domain/bulk-import/types.js';
import { chunkMarkerPut, readChunkMarker } from '../idempotency-store.js';
import {
  chunk,
  forEachLimited,
  groupBy,
  putItem,
  type Table,
  type TransactItem,
  timeLeftMs,
  transact,
  withRetryPolicy,
} from '../kit/index.js';
import { UNDO_SHARE } from './lifecycle.js';
import { counterShard, counterUpdate, newRowItem, PARALLELISM, ROWS_PER_TRANSACTION, stagingMarker } from './rows.js';
import type { StagedCredentials } from './sealing.js';

/** Rows per transaction here: one action of the 100 is the group's marker. */
export const ROWS_PER_MARKED_TRANSACTION = ROWS_PER_TRANSACTION - 1;

export async function insertNewOnce(
  table: Table,
  markers: Table,
  sealing: StagedCredentials,
  appId: string,
  users: readonly ImportUser[],
  now: number,
  once: StagingOnce,
): Promise<{ collidedIds: string[] }> {
  // Before any row: the reconciler must know this app has rows to look after, and where.
  await putItem(
    markers,
    stagingMarker.item({ appId }, { appId, stagedAt: now, table: table.name }, { GSI2: { appId } }),
  );
  // One data key for this attempt's rows (stored before any row names it); a repeat may seal
  // the groups it writes under another: each row names its own.
  const key = await sealing.sealingKeyFor(appId, users);
  // Retries within the request's time, less a share kept to release the claim and answer 503.
  const left = timeLeftMs();
  const deadline = Number.isFinite(left) ? Date.now() + left * (1 - UNDO_SHARE) : undefined;
  const collided: string[] = [];
  const groups = [...groupBy(users, (u) => counterShard(u.id)).entries()];
  await forEachLimited(groups, PARALLELISM, async ([shard, group]) => {
    for (const [part, rows] of chunk(group, ROWS_PER_MARKED_TRANSACTION).entries()) {
      let pending = rows;
      const taken: string[] = [];
      for (;;) {
        const items: TransactItem[] = pending.map((user) => ({
          Put: {
            TableName: table.name,
            Item: newRowItem(appId, user, now, sealing.rowAttributes(appId, user, key)),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        }));
        if (pending.length > 0) items.push(counterUpdate(table, appId, shard, { NEW: pending.length }));
        const markerIndex = items.length;
        items.push(chunkMarkerPut(table, appId, once, shard, part, taken));
        const result = await withRetryPolicy(deadline === undefined ? {} : { deadline }, () => transact(table, items));
        if (result.ok) {
          collided.push(...taken);
          break;
        }
        if (result.failedIndexes.includes(markerIndex)) {
          // Committed by an earlier attempt: what it found taken then is what is taken now.
          collided.push(...((await readChunkMarker(table, appId, once, shard, part)) ?? []));
          break;
        }
        const failed = new Set(result.failedIndexes.flatMap((i) => pending[i]?.id ?? []));
        if (failed.size === 0) throw new Error('a staging transaction failed on a condition of no row');
        taken.push(...pending.filter((u) => failed.has(u.id)).map((u) => u.id));
        pending = pending.filter((u) => !failed.has(u.id));
      }
    }
  });
  return { collidedIds: collided };
}
