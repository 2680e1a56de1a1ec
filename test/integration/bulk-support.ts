/**
 * Shared set-up of the bulk-import integration tests (not a test file itself). Import it FIRST in
 * a test file: it lowers the hashing costs (via users-support) before the config is loaded.
 *
 * Each file that consumes messages gets its own queue pair on the shared local SQS server, so
 * files running in parallel never receive each other's messages.
 */
import { randomUUID } from 'node:crypto';
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, expect } from 'vitest';
import { getDocumentClient } from '#functions/shared/clients.js';
import type { RecordedCall } from '../../bench/lib/calls.js';
import { createImageReader } from '../../bench/lib/item-images.js';
import { recordCalls } from '../../bench/lib/recorder.js';
import { createImportQueuePair, type ImportQueuePair, localSqsClient } from '../../bin/local/sqs.js';
import { type SqsPoller, type SqsWorkerHandler, startSqsPoller } from '../../bin/local/sqs-poller.js';
import { call, captureLogs, expectNoSecrets } from './users-support.js';

export * from './users-support.js';

export const sqsClient = () => localSqsClient(process.env.SQS_ENDPOINT as string, 'local');

/** Creates this file's queue pair and points the publisher (IMPORT_QUEUE_URL) at it. */
export async function useOwnQueues(visibilityTimeoutSeconds = 30): Promise<ImportQueuePair> {
  const pair = await createImportQueuePair(sqsClient(), `bulk-${randomUUID().slice(0, 8)}`, {
    visibilityTimeoutSeconds,
  });
  process.env.IMPORT_QUEUE_URL = pair.queueUrl;
  process.env.IMPORT_DLQ_URL = pair.dlqUrl;
  return pair;
}

/**
 * A bulk-import test file's set-up: every log line captured from now on, and the file's own queue
 * pair (useOwnQueues) before its tests; afterwards, fails the file if any of `secrets` was logged.
 */
export function useBulkTestFile(
  secrets: readonly string[],
  visibilityTimeoutSeconds = 30,
): { logs: { lines: string[] }; pair: () => ImportQueuePair } {
  const logs = captureLogs();
  let pair: ImportQueuePair | undefined;
  beforeAll(async () => {
    pair = await useOwnQueues(visibilityTimeoutSeconds);
  });
  afterAll(() => {
    logs.restore();
    expectNoSecrets(logs.lines, secrets);
  });
  return {
    logs,
    pair: () => {
      if (!pair) throw new Error('the queue pair is created before the tests');
      return pair;
    },
  };
}

/** The SQS event Lambda would hand the import worker for these staged ids (first receive). */
export function sqsEvent(appId: string, ids: readonly string[]): SQSEvent {
  return {
    Records: ids.map((id, i) => ({
      messageId: `m-${i}-${id}`,
      receiptHandle: 'r',
      body: JSON.stringify({ v: 1, appId, id }),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 'test',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:test',
      awsRegion: 'local',
    })),
  };
}

export async function purgeQueue(queueUrl: string): Promise<void> {
  await sqsClient().send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
}

/** Pollers that drive the worker and the DLQ consumer from this file's queues, as Lambda would. */
export async function startPipeline(
  pair: ImportQueuePair,
  options: { worker?: SqsWorkerHandler; concurrency?: number; waitTimeSeconds?: number } = {},
): Promise<{ worker: SqsPoller; dlq: SqsPoller; stop: () => Promise<void> }> {
  const worker =
    options.worker ?? ((await import('#functions/workers/import-worker/handler.js')).handler as SqsWorkerHandler);
  const dlqHandler = (await import('#functions/workers/dlq-consumer/handler.js')).handler as SqsWorkerHandler;
  const common = { client: sqsClient(), region: 'local', batchSize: 10, waitTimeSeconds: options.waitTimeSeconds ?? 1 };
  const workerPoller = startSqsPoller({
    ...common,
    queueUrl: pair.queueUrl,
    queueArn: pair.queueArn,
    functionName: 'import-worker',
    handler: worker,
    concurrency: options.concurrency ?? 4,
    timeoutSeconds: 60,
    onError: (m) => console.error(m),
  });
  const dlqPoller = startSqsPoller({
    ...common,
    queueUrl: pair.dlqUrl,
    queueArn: pair.dlqArn,
    functionName: 'dlq-consumer',
    handler: dlqHandler,
    concurrency: 1,
    timeoutSeconds: 30,
    onError: (m) => console.error(m),
  });
  return {
    worker: workerPoller,
    dlq: dlqPoller,
    stop: async () => {
      await Promise.all([workerPoller.stop(), dlqPoller.stop()]);
    },
  };
}

/** Runs `run` while the pipeline consumes this file's queues; stops it afterwards. */
export async function whilePipelineRuns<T>(pair: ImportQueuePair, run: () => Promise<T>): Promise<T> {
  const pipeline = await startPipeline(pair);
  try {
    return await run();
  } finally {
    await pipeline.stop();
  }
}

export async function stage(appId: string, users: unknown[], options: { gzip?: boolean } = {}) {
  return call('POST', `/appid-${appId}/bulk-import/users`, { body: { users }, ...options });
}

export async function stagedCount(appId: string, status?: string): Promise<number> {
  const res = await call('GET', `/appid-${appId}/bulk-import/users/count${status ? `?status=${status}` : ''}`);
  expect(res.status, res.text).toBe(200);
  return res.json.count as number;
}

/** Every staged user of the app (walks the pages). */
export async function listAll(appId: string, status?: string): Promise<any[]> {
  const users: any[] = [];
  let token: string | undefined;
  do {
    const qs = new URLSearchParams({
      limit: '500',
      ...(status ? { status } : {}),
      ...(token ? { paginationToken: token } : {}),
    });
    const res = await call('GET', `/appid-${appId}/bulk-import/users?${qs}`);
    expect(res.status, res.text).toBe(200);
    users.push(...res.json.users);
    token = res.json.nextPaginationToken;
  } while (token);
  return users;
}

/** Waits until NEW + PROCESSING reaches 0 (the operator's completion rule). */
export async function waitUntilDone(appId: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = (await stagedCount(appId, 'NEW')) + (await stagedCount(appId, 'PROCESSING'));
    if (pending === 0) return;
    if (Date.now() > deadline) throw new Error(`still ${pending} staged users pending after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function userCount(appId: string): Promise<number> {
  const res = await call('GET', `/appid-${appId}/users/count`);
  expect(res.status, res.text).toBe(200);
  return res.json.count as number;
}

/** A minimal valid emailpassword user with a given (bcrypt) hash. */
export const BCRYPT_HASH = '$2a$04$abcdefghijklmnopqrstuu5XwPGRwEj1m5dc8x1fFLhzmkmRkp4qC';
export function epUser(n: number, overrides: Record<string, unknown> = {}, prefix = 'user') {
  return {
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email: `${prefix}${n}@example.com`,
        passwordHash: BCRYPT_HASH,
        hashingAlgorithm: 'bcrypt',
        timeJoinedInMSSinceEpoch: 1_000_000 + n,
      },
    ],
    ...overrides,
  };
}

/**
 * One DynamoDB read: its command (without `Command`), the partitions it named, the sort key it
 * named (GetItem) or began with (Query), and its read units by AWS's rules.
 */
export interface RecordedRead {
  readonly command: string;
  readonly partitions: readonly string[];
  readonly sortKey?: string;
  readonly readUnits: number;
}

/** The partition keys a read call names (GetItem, BatchGetItem, Query; the table's own PK only). */
function partitionsOf(call: RecordedCall): string[] {
  const input = call.input as {
    Key?: { PK?: string };
    RequestItems?: Record<string, { Keys?: { PK?: string }[] }>;
    IndexName?: string;
    ExpressionAttributeValues?: Record<string, unknown>;
  };
  if (input.Key?.PK !== undefined) return [input.Key.PK];
  if (input.RequestItems) {
    return Object.values(input.RequestItems).flatMap((r) => (r.Keys ?? []).flatMap((k) => k.PK ?? []));
  }
  const pk = input.ExpressionAttributeValues?.[':kpk'];
  return typeof pk === 'string' ? [input.IndexName ? `${input.IndexName}:${pk}` : pk] : [];
}

/**
 * Runs `run` with the bench's call recorder (bench/lib/recorder.ts) on this process's DynamoDB
 * client and returns the reads it made, each with its read units computed by AWS's rules. Only
 * the calls of `run` are recorded: nothing else may use the client meanwhile (no pipeline running).
 */
export async function readsOf(run: () => Promise<unknown>): Promise<RecordedRead[]> {
  const client = getDocumentClient();
  const state = { calls: [] as RecordedCall[], phase: 'test', images: true };
  recordCalls(client, state, createImageReader(process.env.DYNAMODB_ENDPOINT as string));
  try {
    await run();
  } finally {
    client.middlewareStack.remove('benchRecordCapacity');
  }
  return state.calls
    .filter((c) => c.kind === 'read')
    .map((c) => {
      const input = c.input as { Key?: { SK?: unknown }; ExpressionAttributeValues?: Record<string, unknown> };
      const sortKey = input.Key?.SK ?? input.ExpressionAttributeValues?.[':ksk'];
      return {
        command: c.command.replace(/Command$/, ''),
        partitions: partitionsOf(c),
        ...(typeof sortKey === 'string' ? { sortKey } : {}),
        readUnits: c.computed?.readUnits ?? 0,
      };
    });
}

/** The reads naming `partition`, as `Command SortKey` strings (e.g. `['GetItem REQUEST']`). */
export const readsNaming = (reads: readonly RecordedRead[], partition: string) =>
  reads.filter((r) => r.partitions.includes(partition)).map((r) => `${r.command} ${r.sortKey ?? ''}`.trim());
