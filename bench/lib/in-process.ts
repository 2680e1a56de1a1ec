/**
 * The production handlers loaded IN the bench process, pointed at the runtime's DynamoDB Local,
 * with a recording middleware on the shared DocumentClient (bench process only; production code is
 * untouched). Used for what the child process cannot tell us: the exact DynamoDB calls of one
 * imported user (the write plan the bare baseline replays) and the request units they cost.
 *
 * Units: DynamoDB Local's ConsumedCapacity does not follow AWS's billing rules (transactions are
 * not doubled per KB, index writes are folded in or missing), so with `images` on, the middleware
 * reads the current items of every key a write touches with a SEPARATE, unrecorded
 * DocumentClient (consistent BatchGet) before forwarding the call, and again after it succeeded,
 * and computes the units from those images with AWS's rules (billing.ts). Reads are computed from
 * the full items read (re-read without projection or filter when the call had one). Local's own
 * figure (ReturnConsumedCapacity 'INDEXES': table + per-index breakdown) is kept beside it.
 * The extra reads slow the calls down, so timings are taken from a pass with `images` off.
 *
 * Concurrent calls may touch the same shared item (a counter shard) between an image read and
 * the write; that can only blur a counter's size by a few bytes (counters carry no index keys).
 */

import { randomBytes } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import type { InProcess } from './calls.js';

export * from './calls.js';

export async function loadInProcess(dynamodbEndpoint: string, tableName: string): Promise<InProcess> {
  // The handlers read these lazily; set them before the first client is created.
  process.env.TABLE_NAME = tableName;
  process.env.DYNAMODB_ENDPOINT = dynamodbEndpoint;
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.LOG_LEVEL = 'error';
  // Staged credentials are sealed (as the runtime does with --in-memory, with a key of this
  // process): what the bench stages here, only this process imports.
  process.env.CREDENTIALS_KEY ??= randomBytes(32).toString('base64');
  // The handlers' metric documents (EMF lines on stdout) would drown the bench's own output.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const [
    { getDocumentClient },
    bulk,
    { loadAppConfig },
    { importValidationContext },
    { requestDigest, stageRequestOnce },
    { createImportWorker },
    images,
    recorder,
  ] = await Promise.all([
    import('#functions/shared/clients.js'),
    import('#functions/wiring/bulk-import.js'),
    import('#functions/wiring/staged-apps.js'),
    import('#functions/wiring/import.js'),
    import('#functions/domain/bulk-import/idempotency.js'),
    import('#functions/workers/import-worker/handler.js'),
    import('./item-images.js'),
    import('./recorder.js'),
  ]);

  const state: InProcess = {
    calls: [],
    phase: 'setup',
    images: true,
    async stage(appId, users) {
      const config = await loadAppConfig(appId);
      if (!config) throw new Error(`app ${appId} does not exist`);
      const sent: { appId: string; id: string }[] = [];
      // No queue: the rows stay NEW and only this process imports them (the runtime's
      // reconciler re-sends rows only minutes later).
      const deps = bulk.keyedStagingDeps(config, { publish: async (messages) => void sent.push(...messages) });
      // As the route stages a request without an Idempotency-Key: under its body's digest.
      const digest = requestDigest(Buffer.from(JSON.stringify({ users })));
      const outcome = await stageRequestOnce(deps, appId, { key: undefined, digest, users }, () =>
        importValidationContext(appId, config),
      );
      if (outcome.kind !== 'answer' || outcome.answer.status !== 200)
        throw new Error('the bench users were not staged');
      return sent;
    },
    async importBatch(messages) {
      const event: SQSEvent = {
        Records: messages.map((m, i) => ({
          messageId: `bench-${i}-${m.id}`,
          receiptHandle: 'bench',
          body: JSON.stringify({ v: 1, appId: m.appId, id: m.id }),
          attributes: {
            ApproximateReceiveCount: '1',
            SentTimestamp: String(Date.now()),
            SenderId: 'bench',
            ApproximateFirstReceiveTimestamp: String(Date.now()),
          },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:local:000000000000:bench',
          awsRegion: 'local',
        })),
      };
      const start = performance.now();
      const out = await worker(event);
      const ms = performance.now() - start;
      if (out.batchItemFailures.length > 0) throw new Error(`import worker failed ${out.batchItemFailures.length}`);
      return ms;
    },
  };
  const worker = createImportWorker();
  recorder.recordCalls(getDocumentClient(), state, images.createImageReader(dynamodbEndpoint));
  return state;
}
