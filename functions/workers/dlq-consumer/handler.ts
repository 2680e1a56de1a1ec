import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handleDeadLetter } from '#functions/domain/bulk-import/processing.js';
import { logger } from '#functions/shared/logger.js';
import { METRIC } from '#functions/shared/metric-names.js';
import { recordMetrics } from '#functions/shared/metrics.js';
import { withinBudget } from '#functions/wiring/budget.js';
import { dlqDeps } from '#functions/wiring/dead-letters.js';
import { importPublisher } from '#functions/wiring/import-queue.js';
import { historyAttributes, historyOf } from '../backpressure.js';
import { forEachRecord } from '../sqs-batch.js';
import { dlqConsumerDeadline } from './budget.js';

/**
 * Dead-letter queue consumer: a message whose retries ran out turns its staged row FAILED with its
 * last error — unless it got there only because of backpressure (its row says so): then it goes
 * back to the import queue with a delay, until IMPORT_BACKPRESSURE's bound.
 */
export const handler = async (
  event: SQSEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<SQSBatchResponse> => {
  const deadline = dlqConsumerDeadline(Date.now(), context);
  const deps = dlqDeps();
  let failed = 0;
  let requeued = 0;
  const response = await withinBudget({ deadline }, () =>
    forEachRecord(event, async (message, record) => {
      const decision = await handleDeadLetter(deps, message, historyOf(record));
      switch (decision.kind) {
        case 'failed':
          failed++;
          logger.warn('staged user failed after exhausting its retries', { ...message });
          return true;
        case 'skipped':
          return true;
        case 'retry':
          return false;
        case 'requeue': {
          const [sent] = await importPublisher.sendDelayed([
            { message, delaySeconds: decision.delaySeconds, attributes: historyAttributes(decision.history) },
          ]);
          if (sent) requeued++;
          return sent === true;
        }
      }
    }),
  );
  recordMetrics({ [METRIC.usersFailed]: failed, [METRIC.importThrottled]: requeued });
  return response;
};
