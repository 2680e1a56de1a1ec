/**
 * The SQS batch contract shared by the queue workers: every record is handled independently (one
 * bad record never fails its neighbours) and only the records that must come back are listed in
 * `batchItemFailures` (partial batch responses). A body that does not match the message schema
 * can never succeed: it is logged and dropped rather than retried into the DLQ.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type ImportMessage, importMessageSchema } from '#functions/domain/bulk-import/message.js';
import { logger } from '#functions/shared/logger.js';

function parseImportMessage(record: SQSRecord): ImportMessage | undefined {
  let json: unknown;
  try {
    json = JSON.parse(record.body);
  } catch {
    json = undefined;
  }
  const parsed = importMessageSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  logger.error('dropping a malformed import message', { messageId: record.messageId });
  return undefined;
}

/** Runs `work` for every record concurrently; `false` (or a throw) lists the record as failed. */
export async function forEachRecord(
  event: SQSEvent,
  work: (message: ImportMessage, record: SQSRecord) => Promise<boolean>,
): Promise<SQSBatchResponse> {
  const results = await Promise.all(
    (event.Records ?? []).map(async (record) => {
      const message = parseImportMessage(record);
      if (!message) return true;
      try {
        return await work(message, record);
      } catch (error) {
        logger.error('import message failed', { messageId: record.messageId, error });
        return false;
      }
    }),
  );
  return {
    batchItemFailures: (event.Records ?? []).flatMap((record, i) =>
      results[i] ? [] : [{ itemIdentifier: record.messageId }],
    ),
  };
}

/**
 * Like {@link forEachRecord}, for work that handles the batch's messages together: `work` gets the
 * well-formed messages and returns, per message, whether it is done. A throw fails them all (they
 * come back; the import is idempotent).
 */
export async function forBatch(
  event: SQSEvent,
  work: (messages: { message: ImportMessage; record: SQSRecord }[]) => Promise<boolean[]>,
): Promise<SQSBatchResponse> {
  const parsed = (event.Records ?? []).flatMap((record) => {
    const message = parseImportMessage(record);
    return message ? [{ message, record }] : [];
  });
  let done: boolean[];
  try {
    done = parsed.length > 0 ? await work(parsed) : [];
  } catch (error) {
    logger.error('import batch failed', { error: error instanceof Error ? error.name : 'unknown error' });
    done = parsed.map(() => false);
  }
  const failed = new Set(parsed.flatMap(({ record }, i) => (done[i] ? [] : [record.messageId])));
  return { batchItemFailures: [...failed].map((itemIdentifier) => ({ itemIdentifier })) };
}
