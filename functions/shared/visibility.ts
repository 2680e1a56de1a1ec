/**
 * ChangeMessageVisibility for delivered messages: a message whose handling must wait comes back
 * after `seconds` instead of the queue's visibility timeout. Best effort by design — a message
 * whose change is refused still comes back, by the queue's own timeout.
 */
import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** SQS's longest visibility timeout. */
const MAX_VISIBILITY_SECONDS = 12 * 3600;

export async function delayVisibility(
  client: SQSClient,
  queueUrl: string,
  entries: readonly { receiptHandle: string; seconds: number }[],
): Promise<void> {
  for (let i = 0; i < entries.length; i += 10) {
    const part = entries.slice(i, i + 10);
    try {
      await client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: part.map((e, j) => ({
            Id: String(j),
            ReceiptHandle: e.receiptHandle,
            VisibilityTimeout: Math.max(0, Math.min(MAX_VISIBILITY_SECONDS, Math.round(e.seconds))),
          })),
        }),
      );
    } catch {
      // Refused (throttled, or the receipt expired): the queue's own visibility timeout applies.
    }
  }
}
