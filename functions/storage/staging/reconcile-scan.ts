/**
 * The reconciler's read: per marked app (GSI2 `BULK#APPS`) that still has NEW/PROCESSING rows
 * (its counters say so), the GSI1 partitions of those two statuses, keeping rows last sent before
 * the cut-off. Reads are cheap next to writes (a Query is billed per 4 KB read, a row is under
 * 1 KB), so rows carry no index entry of their own for this — that would cost an index write when
 * staged, claimed and imported. A marker whose app has nothing pending and that no recent request
 * refreshed is removed (conditionally on its time, so a request staging now keeps it).
 */
import type { PendingRef } from '#functions/domain/bulk-import/staging-ports.js';
import { STAGING_APPS_INDEX_PARTITION, stagedStatusIndexSortKeyBefore } from '../keys/staging.js';
import { deleteItem, forEachLimited, queryAll, queryPages, type Table } from '../kit/index.js';
import { countOf } from './listing.js';
import { MARKER_QUIET_MS, stagingMarker, statusPartitions } from './rows.js';

export async function pendingSentBefore(
  table: Table,
  sentBefore: number,
  visit: (page: readonly PendingRef[]) => Promise<void>,
): Promise<void> {
  const markers = await queryAll(
    table,
    { index: 'GSI2', pk: STAGING_APPS_INDEX_PARTITION },
    { attributes: ['appId', 'stagedAt'] },
  );
  for (const marker of markers) {
    const appId = marker.appId as string;
    const stagedAt = marker.stagedAt as number;
    if ((await countOf(table, appId, ['NEW', 'PROCESSING'])) === 0) {
      if (stagedAt < Date.now() - MARKER_QUIET_MS) {
        await deleteItem(table, stagingMarker.key({ appId }), {
          expression: 'stagedAt = :t',
          values: { ':t': stagedAt },
        });
      }
      continue;
    }
    await forEachLimited(statusPartitions(appId, ['NEW', 'PROCESSING']), 4, async (pk) => {
      const pages = queryPages(
        table,
        // A row is created no later than its last send: only rows created before the cut-off are read.
        { index: 'GSI1', pk, sk: { before: stagedStatusIndexSortKeyBefore(sentBefore) } },
        {
          filter: { expression: 'sentAt < :before', values: { ':before': sentBefore } },
          attributes: ['appId', 'id'],
        },
      );
      for await (const items of pages) {
        if (items.length > 0) await visit(items.map((i) => ({ appId: i.appId as string, id: i.id as string })));
      }
    });
  }
}
