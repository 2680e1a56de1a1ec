import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type ProcessingDeps, processStagedUsers } from '#functions/domain/bulk-import/processing.js';
import { logger } from '#functions/shared/logger.js';
import { METRIC } from '#functions/shared/metric-names.js';
import { recordMetrics } from '#functions/shared/metrics.js';
import { withinBudget } from '#functions/wiring/budget.js';
import { processingDeps, returnDeps } from '#functions/wiring/import-worker.js';
import { snapshotCache } from '#functions/wiring/staged-apps.js';
import { IMPORT_WORKER_RESERVE_SECONDS, WORKERS } from '#functions/workers.js';
import { returnLater } from '../backpressure.js';
import { forBatch } from '../sqs-batch.js';

/**
 * Attempts per storage call inside a worker invocation (the SDK's own retries come on top): when
 * the table keeps pushing back, waiting in the queue costs nothing, waiting in an invocation
 * costs its duration — so the worker gives up early and returns the message with a delay.
 */
export const WORKER_STORAGE_ATTEMPTS = 3;

const TIMEOUT_MS = (WORKERS.find((w) => w.id === 'import-worker')?.timeoutSeconds ?? 60) * 1000;

/** Builds the worker; tests inject faults through `overrides` (e.g. a failing import). */
export function createImportWorker(overrides: Partial<ProcessingDeps> = {}) {
  return async (event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> => {
    const remaining = context?.getRemainingTimeInMillis?.() ?? TIMEOUT_MS;
    const deadline = Date.now() + remaining - IMPORT_WORKER_RESERVE_SECONDS * 1000;
    return withinBudget({ deadline, attempts: WORKER_STORAGE_ATTEMPTS }, () => {
      // Apps are read at most once per invocation, never kept for the next (tenants may change).
      const apps = snapshotCache();
      const deps = processingDeps(overrides, apps);
      return forBatch(event, async (messages) => {
        const results = await processStagedUsers(
          deps,
          messages.map((m) => m.message),
        );
        const counts = { imported: new Set<string>(), failed: new Set<string>(), throttled: 0 };
        const key = (i: number) => {
          const { message } = messages[i] as (typeof messages)[number];
          return `${message.appId}\u0000${message.id}`;
        };
        const back = results.flatMap((result, i) =>
          result.kind === 'backpressure' ? [{ i, error: result.error }] : [],
        );
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
        recordMetrics({
          [METRIC.usersImported]: counts.imported.size,
          [METRIC.usersFailed]: counts.failed.size,
          [METRIC.importThrottled]: counts.throttled,
        });
        return done;
      });
    });
  };
}

/**
 * Import queue consumer (SQS event source, partial batch responses): imports the batch's staged
 * users — together where they can be, one by one where they must be — and returns those the
 * table (or a queue, or the key) was too busy for, with a delay (functions/workers/backpressure.ts).
 */
export const handler = createImportWorker();
