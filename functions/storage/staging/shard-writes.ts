/**
 * Writes of many staged rows at once, the one way: per counter shard, the rows plus ONE update of
 * that shard's counter item per transaction (so counts stay exact and cost one counter write per
 * transaction, not per row). A shard's transactions run one after another — no two of one request
 * conflict on its counter item — and shards run in parallel, bounded by {@link PARALLELISM}.
 * Inserting (insert.ts) and removal (status.ts) go through here.
 */
import type { StagedStatus } from '#functions/domain/bulk-import/staging-ports.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import { batchGetAll, chunk, forEachLimited, groupBy, type Table, transact } from '../kit/index.js';
import { counterShard, counterUpdate, deleteIfStatus, PARALLELISM, ROWS_PER_TRANSACTION, stagedRow } from './rows.js';

/**
 * Runs `write` for `rows`, grouped by counter shard, `perTransaction` rows at a time (`index`: the
 * part's place in its shard's group, the same for the same rows). After a failure no further part
 * starts (`stopped()` turns true, for a write that loops) and the parts in flight finish; then the
 * first error is thrown.
 */
export async function inShardTransactions<R>(
  rows: readonly R[],
  idOf: (row: R) => string,
  perTransaction: number,
  write: (shard: number, part: R[], index: number, stopped: () => boolean) => Promise<void>,
): Promise<void> {
  let failure: { error: unknown } | undefined;
  const stopped = () => failure !== undefined;
  const groups = [...groupBy(rows, (row) => counterShard(idOf(row))).entries()];
  await forEachLimited(groups, PARALLELISM, async ([shard, group]) => {
    for (const [index, part] of chunk(group, perTransaction).entries()) {
      if (stopped()) return;
      try {
        await write(shard, part, index, stopped);
      } catch (error) {
        failure ??= { error };
        return;
      }
    }
  });
  if (failure) throw failure.error;
}

/** A row as {@link deleteRows} reads it. */
interface RowState {
  readonly id: string;
  readonly status: StagedStatus;
}

/**
 * Deletes the rows among `ids` that exist, each on condition that it is still in the status it
 * was read in, with its counter share. A part refused because a row changed meanwhile is read
 * again, within `rounds`. Returns the ids deleted.
 */
export async function deleteRows(
  table: Table,
  appId: string,
  ids: readonly string[],
  options: {
    /** How often refused rows are read again; what remains after is left as it is (not an error). */
    readonly rounds: Omit<RereadPolicy, 'orElse'>;
  },
): Promise<Set<string>> {
  const deleted = new Set<string>();
  let pending = [...new Set(ids)];
  await reread({ ...options.rounds, orElse: () => undefined }, async () => {
    if (pending.length === 0) return undefined;
    const rows = (
      await batchGetAll(
        table,
        pending.map((id) => stagedRow.key({ appId, id })),
        { attributes: ['id', 'status'] },
      )
    ).map((i): RowState => ({ id: i.id as string, status: i.status as StagedStatus }));
    const retry: string[] = [];
    await inShardTransactions(
      rows,
      (r) => r.id,
      ROWS_PER_TRANSACTION,
      async (shard, part) => {
        const deltas: Partial<Record<StagedStatus, number>> = {};
        for (const r of part) deltas[r.status] = (deltas[r.status] ?? 0) - 1;
        const result = await transact(table, [
          ...part.map((r) => deleteIfStatus(table, appId, r.id, r.status)),
          counterUpdate(table, appId, shard, deltas),
        ]);
        if (result.ok) for (const r of part) deleted.add(r.id);
        // A row changed status (or was imported) meanwhile: read it again next round.
        else retry.push(...part.map((r) => r.id));
      },
    );
    pending = retry;
    return pending.length === 0 ? undefined : READ_AGAIN;
  });
  return deleted;
}
