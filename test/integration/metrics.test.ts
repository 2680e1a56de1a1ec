/**
 * The functions' custom metrics as CloudWatch receives them: Embedded Metric Format documents on
 * stdout (Powertools for AWS Lambda's Metrics), one per staging request and per worker batch, with
 * the names the dashboard reads (functions/shared/metric-names.ts), the stack's namespace and the
 * `service` dimension from the environment.
 */
import { PurgeQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getDocumentClient } from '#functions/shared/clients.js';
import { METRIC, METRICS_ENV, METRICS_NAMESPACE } from '#functions/shared/metric-names.js';
import { throttleCalls } from '#functions/shared/simulated-throttling.js';
import { createImportWorker } from '#functions/workers/import-worker/handler.js';
import type { ImportQueuePair } from '../../bin/local/sqs.js';
import { createApp, epUser, sqsClient, stage, useOwnQueues, userCount } from './bulk-support.js';
import { queueDriver } from './queue-support.js';

// On for this file only (the others keep them out of the output); as the stack sets them.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env[METRICS_ENV.namespace] = METRICS_NAMESPACE;
process.env[METRICS_ENV.service] = 'auth-core-test';
process.env.IMPORT_BACKPRESSURE = '1,2,3600';

let pair: ImportQueuePair;
let sqs: SQSClient;
let driver: ReturnType<typeof queueDriver>;
let lines: string[] = [];
const write = process.stdout.write.bind(process.stdout);

beforeAll(async () => {
  pair = await useOwnQueues(2);
  sqs = sqsClient();
  driver = queueDriver(sqs);
});
beforeEach(() => {
  lines = [];
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    const text = String(chunk);
    if (text.startsWith('{"_aws"')) {
      lines.push(...text.trim().split('\n'));
      return true;
    }
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
});
afterEach(() => {
  process.stdout.write = write;
});
afterAll(() => {
  process.stdout.write = write;
});

/** The EMF document of one event with these counts, as CloudWatch reads it. */
const emf = (counts: Record<string, number>) => ({
  _aws: {
    Timestamp: expect.any(Number),
    CloudWatchMetrics: [
      {
        Namespace: 'AuthCore',
        Dimensions: [['service']],
        Metrics: Object.keys(counts).map((Name) => ({ Name, Unit: 'Count' })),
      },
    ],
  },
  service: 'auth-core-test',
  ...counts,
});

const documents = () => lines.map((line) => JSON.parse(line));

describe('custom metrics (EMF)', () => {
  it('a staging request emits one document with the users it staged; an import batch one with those it imported', async () => {
    await sqs.send(new PurgeQueueCommand({ QueueUrl: pair.queueUrl }));
    const appId = await createApp({}, [], 'emf');
    const res = await stage(appId, [epUser(1, {}, 'emf'), epUser(2, {}, 'emf'), epUser(3, {}, 'emf')]);
    expect(res.status, res.text).toBe(200);
    expect(documents()).toEqual([emf({ [METRIC.usersStaged]: 3 })]);

    lines = [];
    const messages = await driver.receiveAll(pair.queueUrl, 3);
    const answer = await driver.invoke(createImportWorker(), pair.queueUrl, messages);
    expect(answer.batchItemFailures).toEqual([]);
    expect(await userCount(appId)).toBe(3);
    expect(documents()).toEqual([emf({ [METRIC.usersImported]: 3 })]);
  });

  it('a batch with a conflict counts it as failed; a throttled batch counts its returns; a refused staging request counts itself', async () => {
    await sqs.send(new PurgeQueueCommand({ QueueUrl: pair.queueUrl }));
    const appId = await createApp({}, [], 'emf');
    // The same email twice: one is imported, the other fails (E003).
    expect((await stage(appId, [epUser(7, {}, 'twice'), epUser(7, {}, 'twice'), epUser(8, {}, 'emf')])).status).toBe(
      200,
    );
    lines = [];
    await driver.invoke(createImportWorker(), pair.queueUrl, await driver.receiveAll(pair.queueUrl, 3));
    expect(documents()).toEqual([emf({ [METRIC.usersImported]: 2, [METRIC.usersFailed]: 1 })]);

    expect((await stage(appId, [epUser(9, {}, 'emf'), epUser(10, {}, 'emf')])).status).toBe(200);
    const stop = throttleCalls(getDocumentClient(), (command) => command === 'TransactWriteItemsCommand');
    try {
      lines = [];
      await driver.invoke(createImportWorker(), pair.queueUrl, await driver.receiveAll(pair.queueUrl, 2));
      expect(documents()).toEqual([emf({ [METRIC.importThrottled]: 2 })]);

      lines = [];
      const refused = await stage(appId, [epUser(11, {}, 'emf')]);
      expect(refused.status).toBe(503);
      expect(documents()).toEqual([emf({ [METRIC.stagingThrottled]: 1 })]);
    } finally {
      stop();
    }
  });
});
