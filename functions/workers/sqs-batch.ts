/**
 * The SQS side of the queue workers' shell: every record's body is parsed by its worker's record
 * schema (`RECORD_SCHEMAS`, functions/workers/records.ts) here, before any work, and the partial batch response is
 * AWS Powertools batch processing's (`BatchProcessor`, `processPartialResponse`): a record whose
 * handler throws is listed in `batchItemFailures` and comes back; every other one is acknowledged.
 *
 * - One bad record never fails its neighbours: each is handled on its own (or, for work that takes
 *   the batch together, gets its own outcome).
 * - A body that can never parse (not JSON, or not the schema) can never succeed: it is logged
 *   (its message id only) and acknowledged — refused up front, never retried into the DLQ. This is
 *   why the shell parses the body itself rather than through Powertools' parser integration, which
 *   lists a record that does not parse as a failure, to come back.
 * - A batch in which every record fails answers with all of them listed, as any other partial
 *   failure (`throwOnFullBatchFailure: false`): the same for Lambda, and the local runtime reads
 *   the answer rather than an error.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '#functions/shared/logger.js';
import type { RecordSchema } from './records.js';

/** A record of the batch with its parsed body. */
export interface Parsed<T> {
  readonly message: T;
  readonly record: SQSRecord;
}

/** Thrown by a record handler for a record that must come back (a result, not an error). */
class ComesBack extends Error {
  constructor(messageId: string) {
    super(`message ${messageId} comes back`);
    this.name = 'ComesBack';
  }
}

function parseRecord<T>({ name, body }: RecordSchema<T>, record: SQSRecord): T | undefined {
  let json: unknown;
  try {
    json = JSON.parse(record.body);
  } catch {
    json = undefined;
  }
  const parsed = body.safeParse(json);
  if (parsed.success) return parsed.data;
  logger.error(`dropping a malformed ${name} message`, { messageId: record.messageId });
  return undefined;
}

/** Powertools' partial batch response of `event`: the records whose `handle` throws are listed. */
async function partialResponse(
  event: SQSEvent,
  handle: (record: SQSRecord) => Promise<void>,
): Promise<SQSBatchResponse> {
  // Nothing to answer for an event without records (Powertools refuses one without the array).
  if (!event.Records?.length) return { batchItemFailures: [] };
  // One processor per invocation: it keeps the batch's state, and invocations may overlap locally.
  return processPartialResponse(event, handle, new BatchProcessor(EventType.SQS), { throwOnFullBatchFailure: false });
}

/**
 * Runs `work` for every well-formed record concurrently; `false` (or a throw, logged) lists the
 * record as failed.
 */
export function forEachRecord<T>(
  records: RecordSchema<T>,
  event: SQSEvent,
  work: (message: T, record: SQSRecord) => Promise<boolean>,
): Promise<SQSBatchResponse> {
  return partialResponse(event, async (record) => {
    const message = parseRecord(records, record);
    if (message === undefined) return;
    let done: boolean;
    try {
      done = await work(message, record);
    } catch (error) {
      logger.error(`${records.name} message failed`, { messageId: record.messageId, error });
      throw error;
    }
    if (!done) throw new ComesBack(record.messageId);
  });
}

/**
 * Like {@link forEachRecord}, for work that handles the batch's well-formed records together: it
 * returns the message ids of those that must come back. A throw fails them all (they come back;
 * the work must be idempotent).
 */
export async function forBatch<T>(
  records: RecordSchema<T>,
  event: SQSEvent,
  work: (parsed: Parsed<T>[]) => Promise<ReadonlySet<string>>,
): Promise<SQSBatchResponse> {
  const parsed = (event.Records ?? []).flatMap((record) => {
    const message = parseRecord(records, record);
    return message === undefined ? [] : [{ message, record }];
  });
  const wellFormed = new Set(parsed.map(({ record }) => record.messageId));
  let back: ReadonlySet<string>;
  try {
    back = parsed.length > 0 ? await work(parsed) : new Set();
  } catch (error) {
    logger.error(`${records.name} batch failed`, {
      error: error instanceof Error ? error.name : 'unknown error',
    });
    back = wellFormed;
  }
  return partialResponse(event, async (record) => {
    if (wellFormed.has(record.messageId) && back.has(record.messageId)) throw new ComesBack(record.messageId);
  });
}
