/**
 * Wiring of the reconciler: re-sends rows whose message is gone. The apps come from the staging
 * markers in the base table; each app's rows are read in the table its configuration names.
 */
import type { ImportPublisher } from '#functions/domain/bulk-import/message.js';
import type { ImportBacklog, ReconcileDeps } from '#functions/domain/bulk-import/reconcile.js';
import { getSqsClient } from '#functions/shared/clients.js';
import { ENV, requireEnv } from '#functions/shared/env.js';
import { logger } from '#functions/shared/logger.js';
import { createQueueBacklog } from '#functions/shared/queue-backlog.js';
import { createStagingMarkers } from '#functions/storage/staging/reconcile-scan.js';
import { importPublisher } from './import-queue.js';
import { configCache } from './staged-apps.js';
import { stagingStoreOf } from './stores.js';
import { appTable, baseTable } from './tables.js';

/** What the import queue and its dead-letter queue hold (the reconciler's view of the backlog). */
export const importBacklog: ImportBacklog = createQueueBacklog({
  client: getSqsClient,
  queueUrls: () => [requireEnv(ENV.importQueueUrl), requireEnv(ENV.importDlqUrl)],
});

export function reconcilerDeps(publisher: ImportPublisher = importPublisher): ReconcileDeps {
  const configOf = configCache();
  return {
    markers: createStagingMarkers(baseTable),
    appStore: async (appId) => {
      const config = await configOf(appId);
      if (!config) return undefined;
      const table = appTable(config);
      return { store: stagingStoreOf(table), table: table.name };
    },
    publisher,
    now: Date.now,
    warn: (message, fields) => logger.warn(message, fields),
  };
}
