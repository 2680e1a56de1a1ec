/**
 * The DLQ consumer's time budget, from its entry in the worker manifest (functions/workers.ts):
 * the timeout the CDK gives the function and sizes the dead-letter queue's visibility timeout
 * for (lib/constants.ts DLQ_CONSUMER_TIMEOUT_SECONDS), so the three cannot drift apart.
 */
import type { Context } from 'aws-lambda';
import { WORKERS } from '#functions/workers.js';

const entry = WORKERS.find((w) => w.id === 'dlq-consumer');
if (entry === undefined) throw new Error('functions/workers.ts has no dlq-consumer entry');

/** The function's timeout (its manifest entry). */
export const DLQ_CONSUMER_TIMEOUT_SECONDS = entry.timeoutSeconds;

/**
 * Storage retries stop this long before the timeout, leaving time to send the re-queued copies
 * and the metrics and to answer with the batch's failures.
 */
export const DLQ_CONSUMER_RESERVE_SECONDS = 5;

/**
 * Epoch ms after which storage calls stop retrying: the invocation's remaining time (the whole
 * timeout where no Lambda context counts it down) less the reserve.
 */
export function dlqConsumerDeadline(now: number, context?: Pick<Context, 'getRemainingTimeInMillis'>): number {
  const remaining = context?.getRemainingTimeInMillis?.() ?? DLQ_CONSUMER_TIMEOUT_SECONDS * 1000;
  return now + remaining - DLQ_CONSUMER_RESERVE_SECONDS * 1000;
}
