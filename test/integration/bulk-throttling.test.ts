/**
 * Throttling is backpressure, against DynamoDB Local and the local SQS server: the shared DynamoDB
 * client gets the rehearsal middleware (functions/shared/simulated-throttling.ts), which throws
 * DynamoDB's own throttling exceptions before a call reaches DynamoDB Local.
 */
import { type Message, PurgeQueueCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { importMessage } from '#functions/domain/bulk-import/message.js';
import { getDocumentClient } from '#functions/shared/clients.js';
import { throttleCalls } from '#functions/shared/simulated-throttling.js';
import { dlqDeps } from '#functions/wiring/dead-letters.js';
import { handler as dlqHandler } from '#functions/workers/dlq-consumer/handler.js';
import { createImportWorker } from '#functions/workers/import-worker/handler.js';
import type { ImportQueuePair } from '../../bin/local/sqs.js';
import {
  call,
  createApp,
  epUser,
  listAll,
  sqsClient,
  stage,
  stagedCount,
  startPipeline,
  useOwnQueues,
  userCount,
  waitUntilDone,
} from './bulk-support.js';
import { queueDriver } from './queue-support.js';

// The import's backoff for this file: 1 s, doubling to 2 s; give up after an hour.
process.env.IMPORT_BACKPRESSURE = '1,2,3600';

let pair: ImportQueuePair;
let sqs: SQSClient;
let unthrottle: (() => void) | undefined;
let receiveAll: ReturnType<typeof queueDriver>['receiveAll'];
let invoke: ReturnType<typeof queueDriver>['invoke'];

beforeAll(async () => {
  pair = await useOwnQueues(2);
  sqs = sqsClient();
  ({ receiveAll, invoke } = queueDriver(sqs));
});
afterEach(() => {
  unthrottle?.();
  unthrottle = undefined;
});
afterAll(() => unthrottle?.());

type Input = { TransactItems?: { Put?: unknown; Update?: unknown; Delete?: unknown }[] };
const writesPuts = (command: string | undefined, input: unknown) =>
  command === 'TransactWriteItemsCommand' && ((input as Input).TransactItems ?? []).some((item) => item.Put);

/**
 * Throttles the calls `decide` picks, from now until the test ends; `random` picks which of
 * DynamoDB's throttling errors each gets (simulated-throttling.ts), at random by default.
 */
function throttle(decide: (command: string | undefined, input: unknown) => boolean, random?: () => number) {
  unthrottle?.();
  unthrottle = throttleCalls(getDocumentClient(), decide, random);
}

const purge = async () => {
  await sqs.send(new PurgeQueueCommand({ QueueUrl: pair.queueUrl }));
  await sqs.send(new PurgeQueueCommand({ QueueUrl: pair.dlqUrl }));
};

describe('staging under throttling', () => {
  it('answers 503 with Retry-After and keeps the groups it wrote; the same body then stages only the rest, every user once', async () => {
    const appId = await createApp({}, [], 'thr');
    const users = Array.from({ length: 400 }, (_, i) => epUser(i, {}, 'stage'));
    let puts = 0;
    // The first transactions go through, then every transaction that writes rows is throttled:
    // part of the request was written when it gave up.
    throttle((command, input) => writesPuts(command, input) && ++puts > 2);
    const refused = await stage(appId, users);
    expect(refused.status, refused.text).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    const kept = await stagedCount(appId);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(400);
    expect(refused.text).toBe(
      `DynamoDB is throttling writes (the table is at its capacity): ${kept} users of 400 staged; ` +
        'send the same request again after 30 s (the same body stages only the users not staged yet)',
    );
    expect(puts).toBeGreaterThan(2);

    unthrottle?.();
    unthrottle = undefined;
    await purge();
    const accepted = await stage(appId, users);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.json.users).toHaveLength(400);
    expect(await stagedCount(appId, 'NEW')).toBe(400);
    expect(await stagedCount(appId)).toBe(400);
    const emails = (await listAll(appId)).map((r) => r.loginMethods[0].email);
    expect(new Set(emails).size).toBe(400);

    // Answered, the same body is a new request again (as the reference core stages it twice).
    const again = await stage(appId, users);
    expect(again.status, again.text).toBe(200);
    expect(await stagedCount(appId)).toBe(800);
    await purge();
  });

  it('with an Idempotency-Key keeps the groups it wrote: the 503 says so, and the repeat with the key stages only the rest', async () => {
    const appId = await createApp({}, [], 'thr');
    const users = Array.from({ length: 400 }, (_, i) => epUser(i, {}, 'keyed'));
    const send = () =>
      call('POST', `/appid-${appId}/bulk-import/users`, {
        body: { users },
        headers: { 'idempotency-key': 'thr-keyed-chunk-0' },
      });
    let puts = 0;
    throttle((command, input) => writesPuts(command, input) && ++puts > 2);
    const refused = await send();
    expect(refused.status, refused.text).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    const kept = await stagedCount(appId);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(400);
    expect(refused.text).toBe(
      `DynamoDB is throttling writes (the table is at its capacity): ${kept} users of 400 staged; send the request ` +
        'again with the same Idempotency-Key after 30 s (it stages only the users not staged yet)',
    );

    unthrottle?.();
    unthrottle = undefined;
    await purge();
    const accepted = await send();
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.json.users).toHaveLength(400);
    expect(await stagedCount(appId, 'NEW')).toBe(400);
    expect(await stagedCount(appId)).toBe(400);
    const replayed = await send();
    expect(replayed.headers['idempotency-replayed']).toBe('true');
    expect(replayed.json).toEqual(accepted.json);
    expect(await stagedCount(appId)).toBe(400);
    await purge();
  });

  it('answers 503 when even the first write is refused, and any request the table keeps refusing answers 503, never 500', async () => {
    const appId = await createApp({}, [], 'thr');
    throttle((command) => command === 'PutItemCommand');
    const refused = await stage(appId, [epUser(1)]);
    expect(refused.status, refused.text).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.text).toBe(
      'DynamoDB is throttling writes (the table is at its capacity): nothing was staged; send the request again after 30 s',
    );
    expect(await stagedCount(appId)).toBe(0);

    throttle((command) => command === 'BatchGetItemCommand');
    const count = await call('GET', `/appid-${appId}/bulk-import/users/count`);
    expect(count.status, count.text).toBe(503);
    expect(count.headers['retry-after']).toBe('5');
    expect(count.text).toBe('The database is busy; retry later');
  });
});

describe('the import worker under throttling', () => {
  it('returns throttled users with a delay and their history, never FAILED; they are imported once the table has room', async () => {
    await purge();
    const appId = await createApp({}, [], 'thr');
    const staged = await stage(
      appId,
      Array.from({ length: 12 }, (_, i) => epUser(i, {}, 'work')),
    );
    expect(staged.status, staged.text).toBe(200);
    const first = await receiveAll(pair.queueUrl, 12);
    expect(first).toHaveLength(12);

    // Every write of the import is throttled: claims, imports, notes.
    throttle((command) => command === 'TransactWriteItemsCommand' || command === 'UpdateItemCommand');
    const worker = createImportWorker();
    const answers = await Promise.all([
      invoke(worker, pair.queueUrl, first.slice(0, 10)),
      invoke(worker, pair.queueUrl, first.slice(10)),
    ]);
    // Every message was returned as a delayed copy: the originals are acknowledged (no receive burnt).
    expect(answers.flatMap((a) => a.batchItemFailures)).toEqual([]);
    expect(await stagedCount(appId, 'FAILED')).toBe(0);

    const returned = await receiveAll(pair.queueUrl, 12);
    expect(returned.map((m) => JSON.parse(m.Body as string).id).sort()).toEqual(
      first.map((m) => JSON.parse(m.Body as string).id).sort(),
    );
    for (const m of returned) {
      expect(Number(m.MessageAttributes?.backpressureRetries?.StringValue)).toBe(1);
      expect(Number(m.MessageAttributes?.backpressureSince?.StringValue)).toBeGreaterThan(Date.now() - 60_000);
    }
    // Still throttled: the second return carries the same start and one more retry.
    const again = await invoke(worker, pair.queueUrl, returned.slice(0, 10));
    expect(again.batchItemFailures).toEqual([]);
    const third = (await receiveAll(pair.queueUrl, 12)).filter(
      (m) => m.MessageAttributes?.backpressureRetries?.StringValue !== '1',
    );
    expect(third.map((m) => Number(m.MessageAttributes?.backpressureRetries?.StringValue))).toEqual(third.map(() => 2));
    const since = new Map(returned.map((m) => [m.Body, m.MessageAttributes?.backpressureSince?.StringValue]));
    for (const m of third) expect(m.MessageAttributes?.backpressureSince?.StringValue).toBe(since.get(m.Body));

    // The table has room again: everyone is imported exactly once, nobody FAILED.
    unthrottle?.();
    unthrottle = undefined;
    const pipeline = await startPipeline(pair);
    try {
      await waitUntilDone(appId, 60_000);
    } finally {
      await pipeline.stop();
    }
    expect(await userCount(appId)).toBe(12);
    expect(await stagedCount(appId)).toBe(0);
  });

  it('turns a user FAILED, saying so, only once it was refused for longer than the bound', async () => {
    await purge();
    const appId = await createApp({}, [], 'thr');
    const staged = await stage(appId, [epUser(1, {}, 'bound')]);
    const id = staged.json.users[0].userId as string;
    await purge();
    // First met backpressure 61 minutes ago (the bound here is an hour).
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: pair.queueUrl,
        MessageBody: JSON.stringify(importMessage(appId, id)),
        MessageAttributes: {
          backpressureSince: { DataType: 'Number', StringValue: String(Date.now() - 61 * 60_000) },
          backpressureRetries: { DataType: 'Number', StringValue: '9' },
        },
      }),
    );
    // The import's writes (they put the user's items) stay throttled; status changes go through.
    // Each is cancelled for a throttled item, so the last error the message names is known.
    throttle(writesPuts, () => 0);
    const [message] = await receiveAll(pair.queueUrl, 1);
    const answer = await invoke(createImportWorker(), pair.queueUrl, [message as Message]);
    expect(answer.batchItemFailures).toEqual([]);
    const [row] = await listAll(appId, 'FAILED');
    expect(row?.errorMessage).toBe(
      'Import gave up after 1 h of throttling: DynamoDB (or SQS or KMS) kept refusing the import for lack of ' +
        'capacity, so nothing of this user was written. Stage the user again once the table has capacity (warm ' +
        'it, or lower the import concurrency). Last error: TransientStorageError: DynamoDB kept throttling ' +
        '(capacity exceeded) after retries (last: TransactionCanceledException)',
    );
    expect(await userCount(appId)).toBe(0);
  });
});

describe('the DLQ consumer', () => {
  it('re-queues a user that reached the DLQ only because of backpressure, and fails one that met an error', async () => {
    await purge();
    const appId = await createApp({}, [], 'thr');
    const staged = await stage(appId, [epUser(1, {}, 'dlq'), epUser(2, {}, 'dlq')]);
    const [busy, broken] = (staged.json.users as { userId: string }[]).map((u) => u.userId) as [string, string];
    await purge();
    const store = dlqDeps().store;
    await store.noteTransientError(
      appId,
      busy,
      'TransientStorageError: DynamoDB kept throttling',
      Date.now(),
      'backpressure',
    );
    await store.noteTransientError(appId, broken, 'Error: something unexpected', Date.now());
    for (const id of [busy, broken]) {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: pair.dlqUrl, MessageBody: JSON.stringify(importMessage(appId, id)) }),
      );
    }
    const dead = await receiveAll(pair.dlqUrl, 2);
    const answer = await invoke(dlqHandler, pair.dlqUrl, dead);
    expect(answer.batchItemFailures).toEqual([]);

    const requeued = await receiveAll(pair.queueUrl, 1);
    expect(requeued.map((m) => JSON.parse(m.Body as string))).toEqual([importMessage(appId, busy)]);
    expect(requeued[0]?.MessageAttributes?.backpressureRetries?.StringValue).toBe('1');
    const failed = await listAll(appId, 'FAILED');
    expect(failed.map((r) => [r.userId ?? r.id, r.errorMessage])).toEqual([
      [broken, 'Import failed after repeated attempts: Error: something unexpected'],
    ]);
    expect(await stagedCount(appId, 'NEW')).toBe(1);
  });
});
