/**
 * A local event source that gives an SQS worker handler the batch semantics Lambda's SQS event
 * source gives it: long-poll receive of up to `batchSize` messages (gathered by several receives
 * above 10, within `batchingWindowSeconds`), an SQSEvent, one invocation,
 * then deletion of the records NOT listed in `batchItemFailures`. Failed records (or the whole
 * batch when the handler throws or returns an unknown identifier) are left alone: they reappear
 * after the visibility timeout with a higher receive count, and the queue's redrive moves them
 * to the DLQ after maxReceiveCount. `concurrency` batches run at most at once; `stop` lets the
 * batches in flight finish.
 */
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { FunctionTimeoutError, localContext, withinTimeout } from './timeouts.js';

export type SqsWorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface SqsPollerOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly region: string;
  readonly functionName: string;
  readonly handler: SqsWorkerHandler;
  /** Messages per invocation at most; above 10 they are gathered by several receives. */
  readonly batchSize: number;
  /** Seconds a batch above 10 may be gathered for (Lambda's batching window). @default 0 */
  readonly batchingWindowSeconds?: number;
  readonly concurrency: number;
  /** The function's timeout: what `getRemainingTimeInMillis` counts down from. */
  readonly timeoutSeconds: number;
  /** Long-poll wait per receive; short, so `stop` is quick. @default 1 */
  readonly waitTimeSeconds?: number;
  /** Problems of the poller itself (receive/delete failures, handler crashes). */
  readonly onError?: (message: string) => void;
}

export interface SqsPoller {
  /** Batches invoked, records acknowledged (deleted) and records left to come back. */
  readonly stats: { invocations: number; deleted: number; failed: number };
  /** True while no batch is being handled. */
  idle(): boolean;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function toRecord(message: Message, options: SqsPollerOptions): SQSRecord {
  const a = message.Attributes ?? {};
  return {
    messageId: message.MessageId as string,
    receiptHandle: message.ReceiptHandle as string,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? '000000000000',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(a.MessageGroupId ? { MessageGroupId: a.MessageGroupId } : {}),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          dataType: value.DataType ?? 'String',
          ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
          stringListValues: [],
          binaryListValues: [],
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: options.queueArn,
    awsRegion: options.region,
  };
}

export function startSqsPoller(options: SqsPollerOptions): SqsPoller {
  const stats = { invocations: 0, deleted: 0, failed: 0 };
  const report = options.onError ?? (() => undefined);
  let stopped = false;
  let busy = 0;

  async function ack(messages: Message[]): Promise<void> {
    for (let i = 0; i < messages.length; i += 10) {
      let entries = messages
        .slice(i, i + 10)
        .map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle as string }));
      for (let attempt = 0; entries.length > 0 && attempt < 5; attempt++) {
        if (attempt > 0) await sleep(100 * 2 ** attempt);
        try {
          const out = await options.client.send(
            new DeleteMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: entries }),
          );
          const failed = new Set((out.Failed ?? []).map((f) => f.Id));
          stats.deleted += entries.length - failed.size;
          entries = entries.filter((e) => failed.has(e.Id));
        } catch (error) {
          if (attempt === 4) report(`${options.functionName}: deleting handled messages failed: ${String(error)}`);
        }
      }
      // Undeleted messages simply come back: the handlers are idempotent.
    }
  }

  async function handle(messages: Message[]): Promise<void> {
    const event: SQSEvent = { Records: messages.map((m) => toRecord(m, options)) };
    let failedIds: Set<string>;
    try {
      stats.invocations++;
      // As Lambda: past the function's timeout the invocation has failed (its batch comes back).
      const response = await withinTimeout(
        options.handler(event, localContext(options.functionName, options.timeoutSeconds * 1000)),
        options.timeoutSeconds * 1000,
      );
      const listed = (response ?? { batchItemFailures: [] }).batchItemFailures ?? [];
      const known = new Set(event.Records.map((r) => r.messageId));
      // As on Lambda: an empty or unknown identifier fails the whole batch.
      failedIds = listed.every((f) => f.itemIdentifier && known.has(f.itemIdentifier))
        ? new Set(listed.map((f) => f.itemIdentifier))
        : known;
    } catch (error) {
      report(
        error instanceof FunctionTimeoutError
          ? `${options.functionName}: ${error.message}; the whole batch will be retried`
          : `${options.functionName} threw; the whole batch will be retried: ${String(error)}`,
      );
      failedIds = new Set(event.Records.map((r) => r.messageId));
    }
    stats.failed += failedIds.size;
    await ack(messages.filter((m) => !failedIds.has(m.MessageId as string)));
  }

  const receive = async (max: number, waitTimeSeconds: number) =>
    (
      await options.client.send(
        new ReceiveMessageCommand({
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: Math.min(10, max),
          WaitTimeSeconds: waitTimeSeconds,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      )
    ).Messages ?? [];

  /**
   * A batch as Lambda gathers it: one long-polled receive, then (for a batch above 10) more while
   * the queue keeps answering, within the batching window. Locally a batch is handed over as soon
   * as the queue has no more, rather than after the whole window.
   */
  async function receiveBatch(): Promise<Message[]> {
    const messages = await receive(options.batchSize, options.waitTimeSeconds ?? 1);
    const until = Date.now() + (options.batchingWindowSeconds ?? 0) * 1000;
    while (messages.length > 0 && messages.length < options.batchSize && Date.now() < until && !stopped) {
      const more = await receive(options.batchSize - messages.length, 0);
      if (more.length === 0) break;
      messages.push(...more);
    }
    return messages;
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      let messages: Message[];
      try {
        messages = await receiveBatch();
      } catch (error) {
        if (stopped) break;
        report(`${options.functionName}: receiving from the queue failed: ${String(error)}`);
        await sleep(1000);
        continue;
      }
      if (messages.length === 0) continue;
      busy++;
      try {
        await handle(messages);
      } finally {
        busy--;
      }
    }
  }

  const loops = Array.from({ length: Math.max(1, options.concurrency) }, () => loop());
  return {
    stats,
    idle: () => busy === 0,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
