/**
 * The fan-out publisher: validates every message with the schema its consumer parses with, sends
 * them in SendMessageBatch calls of 10 (the SQS limit) with bounded parallelism, and retries the
 * entries a response lists as `Failed` (and calls that fail as a whole) with backoff. Anything
 * still unsent after the retries is an error.
 */
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import type { ZodType } from 'zod';

export interface PublisherOptions<T> {
  readonly schema: ZodType<T>;
  /** Resolved at the first send, so the environment may be completed after import. */
  readonly queueUrl: () => string;
  readonly client: () => SQSClient;
  /** SQS fair queues: messages of one group (e.g. one app) cannot starve another group's. */
  readonly groupId?: (message: T) => string;
  /** SendMessageBatch calls in flight. @default 10 */
  readonly concurrency?: number;
  /** Attempts per batch before giving up. @default 6 */
  readonly maxAttempts?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface Publisher<T> {
  publish(messages: readonly T[]): Promise<void>;
}

export class PublishError extends Error {
  constructor(readonly unsent: number) {
    super(`${unsent} message(s) could not be sent to the queue`);
    this.name = 'PublishError';
  }
}

const BATCH = 10;
const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createSqsPublisher<T>(options: PublisherOptions<T>): Publisher<T> {
  const concurrency = options.concurrency ?? 10;
  const maxAttempts = options.maxAttempts ?? 6;
  const sleep = options.sleep ?? defaultSleep;

  async function sendBatch(entries: SendMessageBatchRequestEntry[]): Promise<number> {
    let pending = entries;
    for (let attempt = 0; attempt < maxAttempts && pending.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(2000, 50 * 2 ** attempt) * (0.5 + Math.random()));
      try {
        const out = await options
          .client()
          .send(new SendMessageBatchCommand({ QueueUrl: options.queueUrl(), Entries: pending }));
        const failed = new Set((out.Failed ?? []).map((f) => f.Id));
        pending = pending.filter((e) => failed.has(e.Id));
      } catch {
        // The whole call failed (network, throttling): retry every entry of it.
      }
    }
    return pending.length;
  }

  return {
    async publish(messages) {
      const bodies = messages.map((m) => {
        const parsed = options.schema.parse(m);
        return { body: JSON.stringify(parsed), group: options.groupId?.(parsed) };
      });
      const batches: SendMessageBatchRequestEntry[][] = [];
      for (let i = 0; i < bodies.length; i += BATCH) {
        batches.push(
          bodies.slice(i, i + BATCH).map((b, j) => ({
            Id: String(j),
            MessageBody: b.body,
            ...(b.group !== undefined ? { MessageGroupId: b.group } : {}),
          })),
        );
      }
      let next = 0;
      let unsent = 0;
      await Promise.all(
        Array.from({ length: Math.min(concurrency, batches.length) }, async () => {
          while (next < batches.length) {
            const batch = batches[next++] as SendMessageBatchRequestEntry[];
            unsent += await sendBatch(batch);
          }
        }),
      );
      if (unsent > 0) throw new PublishError(unsent);
    },
  };
}
