import { STAGED_STATUS_VALUES } from '#functions/domain/bulk-import/staging-ports.js';
import { stagingDataKeyPartition } from '../keys/staging.js';
import { batchDeleteAll, forEachLimited, type Key, queryPages, type Table } from '../kit/index.js';
import { counterKeys, stagingMarker, statusPartitions } from './rows.js';

/**
 * App deletion: every staged row of the app (by Query on its GSI1 shards), its counters and the
 * data keys of its staged credentials (the marker is in the base table: purgeStagingMarker).
 */
export async function purgeAppStagedUsers(table: Table, appId: string): Promise<void> {
  await forEachLimited(statusPartitions(appId, STAGED_STATUS_VALUES), 4, async (pk) => {
    for await (const items of queryPages(table, { index: 'GSI1', pk }, { attributes: ['PK', 'SK'] })) {
      await batchDeleteAll(table, items as Key[]);
    }
  });
  for await (const items of queryPages(table, { pk: stagingDataKeyPartition(appId) }, { attributes: ['PK', 'SK'] })) {
    await batchDeleteAll(table, items as Key[]);
  }
  await batchDeleteAll(table, counterKeys(appId));
}

/** App deletion: the app's staging marker (in the base table, whatever table holds its rows). */
export async function purgeStagingMarker(base: Table, appId: string): Promise<void> {
  await batchDeleteAll(base, [stagingMarker.key({ appId })]);
}
