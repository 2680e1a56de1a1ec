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
import { chunk, forEachLimited, groupBy, type Table } from '../kit/index.js';
import { beginStaging, writeNewRows } from './lifecycle.js';
import { counterShard, PARALLELISM, ROWS_PER_TRANSACTION } from './rows.js';
import type { StagedCredentials } from './sealing.js';

/** Rows per transaction here: one action of the 100 is the group's marker. */
const ROWS_PER_MARKED_TRANSACTION = ROWS_PER_TRANSACTION - 1;

export async function insertNewOnce(
  table: Table,
  markers: Table,
  sealing: StagedCredentials,
  appId: string,
  users: readonly ImportUser[],
  now: number,
  once: StagingOnce,
): Promise<{ collidedIds: string[] }> {
  const write = await beginStaging(table, markers, sealing, appId, users, now);
  const collided: string[] = [];
  const groups = [...groupBy(users, (u) => counterShard(u.id)).entries()];
  await forEachLimited(groups, PARALLELISM, async ([shard, group]) => {
    for (const [part, rows] of chunk(group, ROWS_PER_MARKED_TRANSACTION).entries()) {
      const marker = (taken: readonly string[]) => chunkMarkerPut(table, appId, once, shard, part, taken);
      const { taken, extraFailed } = await writeNewRows(table, sealing, appId, shard, rows, now, write, marker);
      // The marker exists: an earlier attempt committed this group, and what it found taken then
      // is what is taken now.
      collided.push(...(extraFailed ? ((await readChunkMarker(table, appId, once, shard, part)) ?? []) : taken));
    }
  });
  return { collidedIds: collided };
}
