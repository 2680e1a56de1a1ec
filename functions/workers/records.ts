/**
 * The record schema of each queue worker (functions/workers.ts): what the body of an SQS record it
 * receives must be. The shell (functions/workers/sqs-batch.ts) parses every body with it before any
 * work; a body that can never parse is refused up front (logged and acknowledged, never retried).
 */
import type * as z from 'zod/mini';
import { type ImportMessage, importMessageSchema } from '#functions/domain/bulk-import/message.js';
import type { WorkerId } from '#functions/workers.js';

export interface RecordSchema<T> {
  /** What a record is called in the log (`dropping a malformed import message`). */
  readonly name: string;
  /** The body, once parsed as JSON. */
  readonly body: z.ZodMiniType<T>;
}

/** One staged user to import: the import queue's message (its producers validate with the same schema). */
const importRecord: RecordSchema<ImportMessage> = { name: 'import', body: importMessageSchema };

export const RECORD_SCHEMAS = {
  'import-worker': importRecord,
  // The import queue's dead letters: the same messages, after their retries ran out.
  'dlq-consumer': importRecord,
} as const satisfies Partial<Record<WorkerId, RecordSchema<unknown>>>;
