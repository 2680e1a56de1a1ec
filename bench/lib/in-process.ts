/**
 * The production handlers loaded IN the bench process, pointed at the runtime's DynamoDB Local,
 * with a recording middleware on the shared DocumentClient (bench process only; production code is
 * untouched). Used for what the child process cannot tell us: the exact DynamoDB calls of one
 * imported user (the write plan the bare baseline replays) and the capacity units they consume
 * (ReturnConsumedCapacity: 'TOTAL').
 */
import type { SQSEvent } from 'aws-lambda';

export interface RecordedCall {
  readonly phase: string;
  readonly command: string;
  /** The DocumentClient input (deep copy), before marshalling. */
  readonly input: Record<string, unknown>;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly ms: number;
  /** DynamoDB Local returned no ConsumedCapacity for this call (seen for GetItem). */
  readonly capacityMissing: boolean;
}

const READS = new Set(['GetCommand', 'BatchGetCommand', 'QueryCommand', 'ScanCommand', 'TransactGetCommand']);

function units(consumed: unknown): number {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce((sum: number, c: { CapacityUnits?: number }) => sum + (c.CapacityUnits ?? 0), 0);
}

export interface InProcess {
  readonly calls: RecordedCall[];
  phase: string;
  /** Stages `users` (raw payloads) into `appId` without sending queue messages; returns the messages. */
  stage(appId: string, users: readonly unknown[]): Promise<{ appId: string; id: string }[]>;
  /** Invokes the import worker handler with one SQS event of these messages; returns its duration. */
  importBatch(messages: readonly { appId: string; id: string }[]): Promise<number>;
}

export async function loadInProcess(dynamodbEndpoint: string, tableName: string): Promise<InProcess> {
  // The handlers read these lazily; set them before the first client is created.
  process.env.TABLE_NAME = tableName;
  process.env.DYNAMODB_ENDPOINT = dynamodbEndpoint;
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.LOG_LEVEL = 'error';
  const [{ getDocumentClient }, deps, { validateStagingRequest }, { stageUsers }, { createImportWorker }] =
    await Promise.all([
      import('#functions/shared/clients.js'),
      import('#functions/storage/staging-deps.js'),
      import('#functions/domain/bulk-import/validate-request.js'),
      import('#functions/domain/bulk-import/staging.js'),
      import('../../functions/workers/import-worker/handler.js'),
    ]);
  const state: InProcess = {
    calls: [],
    phase: 'setup',
    async stage(appId, users) {
      const app = await deps.loadAppImportContext(appId);
      if (!app) throw new Error(`app ${appId} does not exist`);
      const validation = validateStagingRequest({ users }, { ...app.validation, now: Date.now(), newId: randomId });
      if (!validation.ok) throw new Error(`invalid users: ${JSON.stringify(validation.body).slice(0, 300)}`);
      const sent: { appId: string; id: string }[] = [];
      await stageUsers(
        {
          store: deps.stagingStore,
          // No queue: the rows stay NEW and only this process imports them (the runtime's
          // reconciler re-sends rows only minutes later).
          publisher: { publish: async (messages) => void sent.push(...messages) },
          now: Date.now,
          newId: randomId,
          warn: () => undefined,
        },
        appId,
        validation.users,
      );
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
  getDocumentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity = 'TOTAL';
      const copy = structuredClone(input);
      const start = performance.now();
      const out = await next(args);
      const reported = (out.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const consumed = units(reported);
      const command = context.commandName ?? 'unknown';
      const read = READS.has(command);
      state.calls.push({
        phase: state.phase,
        command,
        input: copy,
        readUnits: read ? consumed : 0,
        writeUnits: read ? 0 : consumed,
        ms: performance.now() - start,
        capacityMissing: reported === undefined,
      });
      return out;
    },
    { step: 'initialize', name: 'benchRecordCapacity' },
  );
  return state;
}

function randomId(): string {
  return crypto.randomUUID();
}
