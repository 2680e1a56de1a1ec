import type { SQSEvent } from 'aws-lambda';
import { type ImportBatchDeps, importStagedBatch } from '#functions/domain/bulk-import/import-batch.js';
import { getDocumentClient } from '#functions/shared/clients.js';
import { ENV, optionalEnv } from '#functions/shared/env.js';
import { paceSettingsFrom, paceWrites, TablePaces } from '#functions/shared/import-pace.js';
import { logger } from '#functions/shared/logger.js';
import { METRIC } from '#functions/shared/metric-names.js';
import { importBatchDeps, returnDeps } from '#functions/wiring/import-worker.js';
import { snapshotCache } from '#functions/wiring/staged-apps.js';
import { returnLater } from '../backpressure.js';
import { workerHandler } from '../shell.js';
import { forBatch } from '../sqs-batch.js';

/** Builds the import worker; tests inject faults through `overrides` (e.g. a failing import). */
export function createImportWorker(overrides: Partial<ImportBatchDeps> = {}) {
  return workerHandler('import-worker', async (event: SQSEvent, tally) => {
    // Apps are read at most once per invocation, never kept for the next (tenants may change).
    const apps = snapshotCache();
    const deps = importBatchDeps(overrides, apps);
    return forBatch(event, async (messages) => {
      const results = await importStagedBatch(
        deps,
        messages.map((m) => m.message),
      );
      const counts = { imported: new Set<string>(), failed: new Set<string>(), throttled: 0 };
      const key = (i: number) => {
        const { message } = messages[i] as (typeof messages)[number];
        return `${message.appId}\u0000${message.id}`;
      };
      const back = results.flatMap((result, i) => (result.kind === 'backpressure' ? [{ i, error: result.error }] : []));
      const returned = await returnLater(
        returnDeps(apps.configOf),
        back.map(({ i, error }) => ({ ...(messages[i] as (typeof messages)[number]), error })),
      );
      const done = results.map((result, i) => {
        const { message, record } = messages[i] as (typeof messages)[number];
        if (result.kind === 'imported') counts.imported.add(key(i));
        if (result.kind === 'failed') {
          counts.failed.add(key(i));
          logger.info('staged user failed', { appId: message.appId, id: message.id });
        }
        if (result.kind === 'retry') logger.warn('staged user will be retried', { messageId: record.messageId });
        return result.kind !== 'retry' && result.kind !== 'backpressure';
      });
      for (const [k, outcome] of returned.entries()) {
        const { i } = back[k] as (typeof back)[number];
        if (outcome === 'failed') counts.failed.add(key(i));
        if (outcome === 'returned' || outcome === 'left') counts.throttled++;
        done[i] = outcome !== 'left';
      }
      if (back.length > 0) {
        logger.warn('import met backpressure; users come back later', {
          users: back.length,
          returned: returned.filter((o) => o === 'returned').length,
          left: returned.filter((o) => o === 'left').length,
          failed: returned.filter((o) => o === 'failed').length,
          error: back[0]?.error,
        });
      }
      tally.add(METRIC.usersImported, counts.imported.size);
      tally.add(METRIC.usersFailed, counts.failed.size);
      tally.add(METRIC.importThrottled, counts.throttled);
      return done;
    });
  });
}

let paces: TablePaces | undefined;

/**
 * The pace of this execution environment's writes (functions/shared/import-pace.ts), set up at its
 * first invocation: from then on every write attempt of its DynamoDB client waits for its units,
 * and every throttled attempt slows the table's import down. Only the deployed handler (and the
 * local runtime's, which is the same) is paced: a worker made with {@link createImportWorker} in a
 * test or the bench writes as fast as it can.
 */
function paced(): TablePaces {
  if (!paces) {
    paces = new TablePaces(paceSettingsFrom(optionalEnv(ENV.importWriteUnits), optionalEnv(ENV.importConcurrency)));
    paceWrites(getDocumentClient(), paces);
  }
  return paces;
}

const worker = createImportWorker();

/**
 * Import queue consumer (SQS event source, partial batch responses): imports the batch's staged
 * users — together where they can be, one by one where they must be — at the pace the table takes
 * them, and returns those the table (or a queue, or the key) was too busy for, with a delay
 * (functions/workers/backpressure.ts).
 */
export const handler: typeof worker = async (event, context) => {
  paced();
  return await worker(event, context);
};
