import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { failExhaustedImport } from '#functions/domain/bulk-import/processing.js';
import { logger } from '#functions/shared/logger.js';
import { dlqDeps } from '#functions/wiring/bulk-import.js';
import { forEachRecord } from '../sqs-batch.js';

/** Dead-letter queue consumer: a message whose retries ran out turns its staged row FAILED. */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const deps = dlqDeps();
  return forEachRecord(event, async (message) => {
    const result = await failExhaustedImport(deps, message);
    if (result === 'failed') logger.warn('staged user failed after exhausting its retries', { ...message });
    return result !== 'retry';
  });
};
