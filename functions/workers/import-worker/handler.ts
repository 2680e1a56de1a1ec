import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type ProcessingDeps, processStagedUsers } from '#functions/domain/bulk-import/processing.js';
import { logger } from '#functions/shared/logger.js';
import { processingDeps } from '#functions/wiring/bulk-import.js';
import { forBatch } from '../sqs-batch.js';

/** Builds the worker; tests inject faults through `overrides` (e.g. a failing import). */
export function createImportWorker(overrides: Partial<ProcessingDeps> = {}) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const deps = processingDeps(overrides);
    return forBatch(event, async (messages) => {
      const results = await processStagedUsers(
        deps,
        messages.map((m) => m.message),
      );
      return results.map((result, i) => {
        const { message, record } = messages[i] as (typeof messages)[number];
        if (result.kind === 'failed') logger.info('staged user failed', { appId: message.appId, id: message.id });
        if (result.kind === 'retry') logger.warn('staged user will be retried', { messageId: record.messageId });
        return result.kind !== 'retry';
      });
    });
  };
}

/**
 * Import queue consumer (SQS event source, partial batch responses): imports the batch's staged
 * users — together where they can be, one by one where they must be.
 */
export const handler = createImportWorker();
