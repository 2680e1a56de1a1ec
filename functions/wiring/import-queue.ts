/**
 * The import queue as the bulk-import functions use it: messages to it (staging, the import worker's and
 * the DLQ consumer's returns, the reconciler's re-sends). The SQS client is created once per process.
 */
import { type ImportMessage, importMessageSchema } from '#functions/domain/bulk-import/message.js';
import { getSqsClient } from '#functions/shared/clients.js';
import { ENV, requireEnv } from '#functions/shared/env.js';
import { createSqsPublisher, type Publisher } from '#functions/shared/publisher.js';

/** Messages to the import queue; the app id is the SQS fair-queue message group. */
export const importPublisher: Publisher<ImportMessage> = createSqsPublisher({
  schema: importMessageSchema,
  queueUrl: () => requireEnv(ENV.importQueueUrl),
  client: getSqsClient,
  groupId: (m) => m.appId,
});
