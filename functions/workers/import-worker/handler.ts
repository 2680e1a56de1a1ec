import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type ProcessingDeps, processStagedUser } from '#functions/domain/bulk-import/processing.js';
import { logger } from '#functions/shared/logger.js';
import { processingDeps } from '#functions/storage/staging-deps.js';
import { forEachRecord } from '../sqs-batch.js';

/** Builds the worker; tests inject faults through `overrides` (e.g. a failing import). */
export function createImportWorker(overrides: Partial<ProcessingDeps> = {}) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const deps = processingDeps(overrides);
    return forEachRecord(event, async (message, record) => {
      const result = await processStagedUser(deps, message);
      if (result.kind === 'failed') logger.info('staged user failed', { appId: message.appId, id: message.id });
      if (result.kind === 'retry') logger.warn('staged user will be retried', { messageId: record.messageId });
      return result.kind !== 'retry';
    });
  };
}

/** Import queue consumer (SQS event source, partial batch responses): imports one staged user per record. */
export const handler = createImportWorker();
