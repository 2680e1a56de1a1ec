import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { failExhaustedImport } from '#functions/domain/bulk-import/processing.js';
import { logger } from '#functions/shared/logger.js';
import { stagingStore } from '#functions/storage/staging-store.js';
import { forEachRecord } from '../sqs-batch.js';

/** Dead-letter queue consumer: a message whose retries ran out turns its staged row FAILED. */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> =>
  forEachRecord(event, async (message) => {
    const result = await failExhaustedImport({ store: stagingStore, now: Date.now }, message);
    if (result === 'failed') logger.warn('staged user failed after exhausting its retries', { ...message });
    return result !== 'retry';
  });
