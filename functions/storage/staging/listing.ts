/** Reads of the status API: staged rows newest first across the index shards, and exact counts. */
import {
  STAGED_STATUS_VALUES,
  type StagedCursor,
  type StagedRow,
  type StagedStatus,
} from '#functions/domain/bulk-import/staging-ports.js';
import { stagedStatusIndexSortKey } from '../keys/staging.js';
import { batchGetAll, forEachLimited, type Item, queryPage, type Table } from '../kit/index.js';
import { counterKeys, fromItem, statusPartitions } from './rows.js';

/** One index partition read newest first, page by page, on demand. */
class ShardCursor {
  private buffer: Item[] = [];
  private startKey: Item | undefined;
  private done = false;

  constructor(
    private readonly table: Table,
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
    const page = await queryPage(
      this.table,
      { index: 'GSI1', pk: this.pk, ...(this.upTo === undefined ? {} : { sk: { upTo: this.upTo } }) },
      { forward: false, pageSize: this.pageSize, ...(this.startKey ? { startKey: this.startKey } : {}) },
    );
    this.buffer.push(...page.items);
    this.startKey = page.next;
    if (!this.startKey) this.done = true;
  }
}

/**
 * Newest first across the index shards (of one status, or of all three): a k-way merge of
 * per-shard cursors that each read small pages only as far as the page needs.
 */
export async function list(
  table: Table,
  appId: string,
  query: { status?: StagedStatus; limit: number; from?: StagedCursor },
): Promise<{ rows: StagedRow[]; next?: StagedCursor }> {
  const partitions = statusPartitions(appId, query.status ? [query.status] : STAGED_STATUS_VALUES);
  const upTo = query.from ? stagedStatusIndexSortKey(query.from.createdAt, query.from.id) : undefined;
  const wanted = query.limit + 1;
  const pageSize = Math.min(wanted, Math.max(10, Math.ceil((wanted * 2) / partitions.length)));
  const cursors = partitions.map((pk) => new ShardCursor(table, pk, upTo, pageSize));
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
  const rows = picked.slice(0, query.limit).map((item) => fromItem(item));
  const nextItem = picked[query.limit];
  return nextItem ? { rows, next: { createdAt: nextItem.createdAt as number, id: nextItem.id as string } } : { rows };
}

/** Rows of these statuses (all when omitted), from one consistent read of the counter shards. */
export async function countOf(
  table: Table,
  appId: string,
  statuses: readonly StagedStatus[] = STAGED_STATUS_VALUES,
): Promise<number> {
  let total = 0;
  for (const item of await batchGetAll(table, counterKeys(appId))) {
    for (const s of statuses) total += Number(item[s] ?? 0);
  }
  return total;
}
