/**
 * The reconciler's reads. The apps that staged users carry a marker in the base table (GSI2
 * `BULK#APPS`), whatever table holds their rows. Per app, the GSI1 partitions of NEW and
 * PROCESSING in the app's table, keeping rows last sent before the cut-off. Reads are cheap next
 * to writes (a Query is billed per 4 KB read, a row is under 1 KB), so rows carry no index entry of
 * their own for this — that would cost an index write when staged, claimed and imported.
 */
import type { PendingRef, StagingAppMarkers } from '#functions/domain/bulk-import/staging-ports.js';
import { STAGING_APPS_INDEX_PARTITION, stagedStatusIndexSortKeyBefore } from '../keys/staging.js';
import { deleteItem, forEachLimited, queryAll, queryPages, type Table } from '../kit/index.js';
import { stagingMarker, statusPartitions } from './rows.js';

/** The markers of the apps that staged users, kept in `base` (the base table). */
export function createStagingMarkers(base: Table): StagingAppMarkers {
  return {
    async list() {
      const items = await queryAll(
        base,
        { index: 'GSI2', pk: STAGING_APPS_INDEX_PARTITION },
        { attributes: ['appId', 'stagedAt', 'table'] },
      );
      return items.map((i) => ({
        appId: i.appId as string,
        stagedAt: i.stagedAt as number,
        ...(typeof i.table === 'string' ? { table: i.table } : {}),
      }));
    },
    // Conditional on its time: a request staging now keeps it.
    remove: async (appId, stagedAt) =>
      void (await deleteItem(base, stagingMarker.key({ appId }), {
        expression: 'stagedAt = :t',
        values: { ':t': stagedAt },
      })),
  };
}

/** The app's NEW/PROCESSING rows last sent before `sentBefore`, page by page. */
export async function pendingSentBefore(
  table: Table,
  appId: string,
  sentBefore: number,
  visit: (page: readonly PendingRef[]) => Promise<void>,
): Promise<void> {
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
