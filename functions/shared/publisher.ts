/**
 * The fan-out publisher: validates every message with the schema its consumer parses with, sends
 * them in SendMessageBatch calls of 10 (the SQS limit) with bounded parallelism, and retries the
 * entries a response lists as `Failed` (and calls that fail as a whole) with backoff. Anything
 * still unsent after the retries is an error; so is the invocation's time running out
 * (`BudgetExhaustedError`: `publish` makes no retry that would end past the invocation's deadline,
 * and no attempt past the end of its working time).
 */
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import { currentRetryPolicy } from './call-budget.js';
import { BudgetExhaustedError } from './errors.js';

export interface PublisherOptions<T> {
  /** Parses (and so validates) each message as its consumer will; throws on an invalid one. */
  readonly schema: { parse(value: unknown): T };
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

/** A message sent with a delay and message attributes (e.g. returned to its queue under backpressure). */
interface DelayedEntry<T> {
  readonly message: T;
  /** 0–900 (SQS's limit; clamped). */
  readonly delaySeconds: number;
  /** Number attributes, by name. */
  readonly attributes?: Readonly<Record<string, number>>;
}

export interface Publisher<T> {
  publish(messages: readonly T[]): Promise<void>;
  /** Sends each entry with its delay and attributes; says per entry whether it was sent (never throws for SQS). */
  sendDelayed(entries: readonly DelayedEntry<T>[]): Promise<boolean[]>;
}

/** SQS's longest message delay. */
const MAX_DELAY_SECONDS = 900;

class PublishError extends Error {
  constructor(readonly unsent: number) {
    super(`${unsent} message(s) could not be sent to the queue`);
    this.name = 'PublishError';
  }
}

const BATCH = 10;
const idsOf = (entries: readonly SendMessageBatchRequestEntry[]) => new Set(entries.map((e) => e.Id as string));
const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createSqsPublisher<T>(options: PublisherOptions<T>): Publisher<T> {
  const concurrency = options.concurrency ?? 10;
  const maxAttempts = options.maxAttempts ?? 6;
  const sleep = options.sleep ?? defaultSleep;

  /**
   * Sends the entries; returns the Ids still unsent after the retries, and whether the invocation's
   * time ran out (no attempt is made past it: functions/shared/call-budget.ts).
   */
  async function sendBatch(
    entries: SendMessageBatchRequestEntry[],
    withinDeadline: boolean,
  ): Promise<{ unsent: Set<string>; outOfTime: boolean }> {
    let pending = entries;
    for (let attempt = 0; attempt < maxAttempts && pending.length > 0; attempt++) {
      if (attempt > 0) {
        const delay = Math.min(2000, 50 * 2 ** attempt) * (0.5 + Math.random());
        // No retry past the invocation's deadline (as the DynamoDB kit's): the caller answers then.
        const { deadline } = currentRetryPolicy();
        if (withinDeadline && deadline !== undefined && Date.now() + delay >= deadline)
          return { unsent: idsOf(pending), outOfTime: true };
        await sleep(delay);
      }
      try {
        const out = await options
          .client()
          .send(new SendMessageBatchCommand({ QueueUrl: options.queueUrl(), Entries: pending }));
        const failed = new Set((out.Failed ?? []).map((f) => f.Id));
        pending = pending.filter((e) => failed.has(e.Id));
      } catch (error) {
        if (error instanceof BudgetExhaustedError) return { unsent: idsOf(pending), outOfTime: true };
        // The whole call failed (network, throttling): retry every entry of it.
      }
    }
    return { unsent: idsOf(pending), outOfTime: false };
  }

  const entryOf = (message: T, id: string): SendMessageBatchRequestEntry => {
    const parsed = options.schema.parse(message);
    const group = options.groupId?.(parsed);
    return { Id: id, MessageBody: JSON.stringify(parsed), ...(group !== undefined ? { MessageGroupId: group } : {}) };
  };

  return {
    async publish(messages) {
      const entries = messages.map((m, i) => entryOf(m, String(i % BATCH)));
      const batches: SendMessageBatchRequestEntry[][] = [];
      for (let i = 0; i < entries.length; i += BATCH) batches.push(entries.slice(i, i + BATCH));
      let next = 0;
      let unsent = 0;
      let outOfTime = false;
      await Promise.all(
        Array.from({ length: Math.min(concurrency, batches.length) }, async () => {
          while (next < batches.length && !outOfTime) {
            const batch = batches[next++] as SendMessageBatchRequestEntry[];
            const sent = await sendBatch(batch, true);
            unsent += sent.unsent.size;
            outOfTime ||= sent.outOfTime;
          }
        }),
      );
      if (outOfTime) throw new BudgetExhaustedError('the time ran out while sending messages');
      if (unsent > 0) throw new PublishError(unsent);
    },
    async sendDelayed(entries) {
      const requests = entries.map((entry, i) => ({
        ...entryOf(entry.message, String(i)),
        DelaySeconds: Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.round(entry.delaySeconds))),
        ...(entry.attributes
          ? {
              MessageAttributes: Object.fromEntries(
                Object.entries(entry.attributes).map(([name, value]) => [
                  name,
                  { DataType: 'Number', StringValue: String(value) },
                ]),
              ),
            }
          : {}),
      }));
      const unsent = new Set<string>();
      for (let i = 0; i < requests.length; i += BATCH) {
        // Handing messages back runs after the deadline by design (in the time kept for it).
        for (const id of (await sendBatch(requests.slice(i, i + BATCH), false)).unsent) unsent.add(id);
      }
      return entries.map((_, i) => !unsent.has(String(i)));
    },
  };
}
