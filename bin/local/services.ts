import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { ENV } from '#functions/shared/env.js';
import { WORKERS } from '#functions/workers.js';
import { handlerModulePath } from './bundles.js';
import { startLocalSqs } from './sqs.js';
import { type SqsPoller, type SqsWorkerHandler, startSqsPoller } from './sqs-poller.js';
import { functionTimeoutSeconds, withinTimeout } from './timeouts.js';
import { startWorkerPool, type WorkerPool } from './worker-pool.js';

/**
 * Extension point: the local runtime's background services.
 *
 * After DynamoDB Local is up and the table exists, and BEFORE any handler module is imported,
 * the runtime starts every service in `BACKGROUND_SERVICES` in order and stops them in reverse
 * order on shutdown (after the HTTP server has drained, before DynamoDB Local stops).
 *
 * What belongs here (the import pipeline, docs/import-pipeline.md):
 * - the local SQS server (fauxqs) with the import queue and its DLQ — its `start` sets
 *   `SQS_ENDPOINT`, `IMPORT_QUEUE_URL` and `IMPORT_DLQ_URL` in `context.env` so the handlers
 *   that send see them;
 * - event-source pollers that receive batches and invoke the import worker and the DLQ consumer
 *   with Lambda's batch semantics (partial batch failures, visibility timeout, maxReceiveCount);
 * - the reconciler on a timer.
 */
export interface ServiceContext {
  /** The process environment; a service may add variables the handlers read (before they load). */
  readonly env: NodeJS.ProcessEnv;
  /** Absolute data directory, or undefined in memory mode. */
  readonly dataDir: string | undefined;
  readonly region: string;
  readonly dynamodbEndpoint: string;
  readonly tableName: string;
  /** Prints a human-readable runtime message. */
  readonly say: (message: string) => void;
  /** Prints a human-readable problem. */
  readonly report: (message: string) => void;
  /**
   * Call when the service fails on its own after start-up (e.g. its server process died): the
   * runtime then shuts down with a non-zero exit code rather than half-working.
   */
  readonly fail: (message: string) => void;
}

export interface RunningService {
  /** Lines added to the start-up banner, e.g. `SQS: http://127.0.0.1:4566 (queue auth-core-import)`. */
  readonly banner?: readonly string[];
  stop(): Promise<void>;
}

export interface LocalService {
  readonly name: string;
  start(context: ServiceContext): Promise<RunningService>;
}

// ------------------------------------------------------------------------------------------------
// The import pipeline (docs/import-pipeline.md)

/** Local queue names (the stack generates its own). */
export const LOCAL_IMPORT_QUEUE = 'auth-core-import';
/**
 * Visibility timeout of the local import queue. The stack uses 6 × the worker's timeout (6 min);
 * locally a failed message comes back after 30 s so a poison user reaches FAILED in minutes.
 */
const LOCAL_VISIBILITY_TIMEOUT_SECONDS = 30;
/**
 * Import batches received at once locally (the stack allows more). Never fewer than the worker's
 * execution contexts (one per core, worker-pool.ts), so every core hashes; a spare batch is ready
 * for a context while its previous one is being acknowledged.
 */
const LOCAL_WORKER_CONCURRENCY = 4;
const LOCAL_RECONCILE_EVERY_MS = 60_000;
/** A start-up pass the table refused is tried again after this long. */
const LOCAL_RECOVERY_RETRY_MS = 5_000;
/**
 * Tests only: `LOCAL_IMPORT_CONTEXTS=<n>` runs the import worker in n execution contexts instead of
 * one per core. Under simulated throttling an invocation spends much of its time waiting (backoff
 * between attempts), so more contexts than cores keep the import moving.
 */
const LOCAL_IMPORT_CONTEXTS_ENV = 'LOCAL_IMPORT_CONTEXTS';

function importContexts(env: NodeJS.ProcessEnv): number | undefined {
  const text = env[LOCAL_IMPORT_CONTEXTS_ENV]?.trim();
  if (!text) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1 || n > 32) {
    throw new Error(`${LOCAL_IMPORT_CONTEXTS_ENV} must be a whole number from 1 to 32, got '${text}'`);
  }
  return n;
}
/**
 * Locally, once the queues are empty, a row is re-sent when its message was last sent this long
 * ago (AWS: 15 min); while they hold messages, after BUSY_RESEND_AFTER_MS as on AWS.
 */
const LOCAL_RESEND_AFTER_MS = 5 * 60_000;

type Loaded = { handler: (...args: never[]) => Promise<unknown> };

function definitionOf(id: string) {
  const definition = WORKERS.find((w) => w.id === id);
  if (!definition) throw new Error(`worker ${id} is not in functions/workers.ts`);
  return definition;
}

/** Loads a worker's handler in this thread (the light ones: DLQ consumer, reconciler). */
async function loadWorker(id: string): Promise<Loaded['handler']> {
  const definition = definitionOf(id);
  const module = (await import(pathToFileURL(handlerModulePath(definition)).href)) as Partial<Loaded>;
  if (typeof module.handler !== 'function') throw new Error(`${definition.handler} does not export handler`);
  return module.handler;
}

function workerDefinition(id: string) {
  const definition = definitionOf(id);
  if (definition.source.kind === 'schedule') throw new Error(`worker ${id} is not a queue worker`);
  return { definition, source: definition.source };
}

/**
 * Runs the import worker, which hashes plain-text passwords (CPU-bound), in a pool of worker
 * threads — one execution context per core, as each Lambda invocation has its own instance and
 * vCPU — so hashing uses every core and never blocks this thread (HTTP server, pollers).
 */
async function importWorkerPool(context: ServiceContext): Promise<WorkerPool> {
  const definition = definitionOf('import-worker');
  const size = importContexts(context.env) ?? Math.max(2, availableParallelism());
  // The import's pace (functions/shared/import-pace.ts) shares a table's units among the contexts,
  // as the stack shares them among the function's maximum concurrency.
  context.env[ENV.importConcurrency] ??= String(size);
  return startWorkerPool({
    name: definition.id,
    handlerPath: handlerModulePath(definition),
    env: context.env,
    size,
    memoryMb: definition.memoryMb,
    report: context.report,
  });
}

/**
 * fauxqs with the import queue and its DLQ, a poller per queue worker (the import worker's
 * batches run in worker threads, see importWorkerPool), and the reconciler: once at start-up for
 * every row sent before this runtime started (fauxqs lost those messages when the previous run
 * stopped), then on a timer.
 */
const importPipelineService: LocalService = {
  name: 'the import pipeline',
  async start(context) {
    const startedAt = Date.now();
    const sqs = await startLocalSqs({
      region: context.region,
      queueName: LOCAL_IMPORT_QUEUE,
      visibilityTimeoutSeconds: LOCAL_VISIBILITY_TIMEOUT_SECONDS,
    });
    context.env[ENV.sqsEndpoint] = sqs.endpoint;
    context.env[ENV.importQueueUrl] = sqs.queueUrl;
    context.env[ENV.importDlqUrl] = sqs.dlqUrl;

    const pollers: SqsPoller[] = [];
    let pool: WorkerPool | undefined;
    let importConcurrency = LOCAL_WORKER_CONCURRENCY;
    let timer: NodeJS.Timeout | undefined;
    let reconciling: Promise<void> | undefined;
    let stopping = false;
    const stop = async () => {
      stopping = true;
      if (timer) clearInterval(timer);
      await reconciling;
      // The pollers let their batches in flight finish, then the pool ends its threads.
      await Promise.all(pollers.map((p) => p.stop()));
      await pool?.stop();
      await sqs.stop();
    };
    const starting = importWorkerPool(context).then((started) => {
      pool = started;
      return started;
    });
    try {
      const [workers, dlqConsumer, reconciler] = await Promise.all([
        starting,
        loadWorker('dlq-consumer'),
        loadWorker('reconciler'),
      ]);
      importConcurrency = Math.max(LOCAL_WORKER_CONCURRENCY, workers.size);
      const queues = [
        {
          id: 'import-worker',
          handler: workers.invoke,
          url: sqs.queueUrl,
          arn: sqs.queueArn,
          concurrency: importConcurrency,
        },
        { id: 'dlq-consumer', handler: dlqConsumer, url: sqs.dlqUrl, arn: sqs.dlqArn, concurrency: 1 },
      ];
      for (const q of queues) {
        const { definition, source } = workerDefinition(q.id);
        pollers.push(
          startSqsPoller({
            client: sqs.client,
            queueUrl: q.url,
            queueArn: q.arn,
            region: context.region,
            functionName: definition.id,
            handler: q.handler as SqsWorkerHandler,
            batchSize: source.batchSize,
            ...('batchingWindowSeconds' in source && source.batchingWindowSeconds !== undefined
              ? { batchingWindowSeconds: source.batchingWindowSeconds }
              : {}),
            // The import worker's maxConcurrency sizes the deployed event source to a new
            // table's write capacity; DynamoDB Local has no such limit, so locally it runs as
            // many batches as its threads can use.
            concurrency: q.id === 'import-worker' ? q.concurrency : Math.min(source.maxConcurrency, q.concurrency),
            timeoutSeconds: functionTimeoutSeconds(definition.timeoutSeconds, context.env),
            onError: context.report,
          }),
        );
      }
      // The start-up pass re-sends every row of the previous run (whose messages fauxqs lost);
      // until it has succeeded once — a busy table can refuse it — it is what the timer repeats,
      // soon, instead of the ordinary pass.
      let recovered = false;
      const reconcile = () => {
        if (reconciling || stopping) return;
        const detail = recovered ? { resendAfterMs: LOCAL_RESEND_AFTER_MS } : { sentBefore: startedAt };
        const run = reconciler as unknown as (
          event: { detail: typeof detail },
          lambda: { getRemainingTimeInMillis: () => number },
        ) => Promise<{ resent: number }>;
        const timeoutMs = functionTimeoutSeconds(definitionOf('reconciler').timeoutSeconds, context.env) * 1000;
        const end = Date.now() + timeoutMs;
        reconciling = withinTimeout(run({ detail }, { getRemainingTimeInMillis: () => end - Date.now() }), timeoutMs)
          .then((r) => {
            recovered = true;
            if (r.resent > 0) context.say(`Reconciler: re-sent ${r.resent} staged user(s) for import.`);
          })
          .catch((error: unknown) => {
            context.report(`Reconciler failed (it runs again later): ${String(error)}`);
            if (!recovered) setTimeout(reconcile, LOCAL_RECOVERY_RETRY_MS).unref();
          })
          .finally(() => {
            reconciling = undefined;
          });
      };
      reconcile();
      timer = setInterval(reconcile, LOCAL_RECONCILE_EVERY_MS);
      timer.unref();
    } catch (error) {
      await starting.catch(() => undefined);
      await stop();
      throw error;
    }
    return {
      banner: [
        `SQS:       fauxqs at ${sqs.endpoint} (queue ${LOCAL_IMPORT_QUEUE}, DLQ ${LOCAL_IMPORT_QUEUE}-dlq; in memory)`,
        `Import:    worker ×${importConcurrency} (batches at once, in ${pool?.size} worker threads), ` +
          `DLQ consumer, reconciler every ${LOCAL_RECONCILE_EVERY_MS / 60_000} min`,
      ],
      stop,
    };
  },
};

export const BACKGROUND_SERVICES: readonly LocalService[] = [importPipelineService];
