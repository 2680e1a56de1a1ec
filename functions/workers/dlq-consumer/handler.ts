import type { SQSEvent } from 'aws-lambda';
import { handleDeadLetter } from '#functions/domain/bulk-import/dead-letters.js';
import { logger } from '#functions/shared/logger.js';
import { METRIC } from '#functions/shared/metric-names.js';
import { dlqDeps } from '#functions/wiring/dead-letters.js';
import { importPublisher } from '#functions/wiring/import-queue.js';
import { historyAttributes, historyOf } from '../backpressure.js';
import { RECORD_SCHEMAS } from '../records.js';
import { workerHandler } from '../shell.js';
import { forEachRecord } from '../sqs-batch.js';

/**
 * Dead-letter queue consumer: a message whose retries ran out turns its staged row FAILED with its
 * last error — unless it got there only because of backpressure (its row says so): then it goes
 * back to the import queue with a delay, until IMPORT_BACKPRESSURE's bound.
 */
export const handler = workerHandler('dlq-consumer', async (event: SQSEvent, tally) => {
  const deps = dlqDeps();
  return forEachRecord(RECORD_SCHEMAS['dlq-consumer'], event, async (message, record) => {
    const decision = await handleDeadLetter(deps, message, historyOf(record));
    switch (decision.kind) {
      case 'failed':
        tally.add(METRIC.usersFailed);
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
        if (sent) tally.add(METRIC.importThrottled);
        return sent === true;
      }
    }
  });
});
