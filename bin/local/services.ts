/**
 * Extension point: the local runtime's background services.
 *
 * After DynamoDB Local is up and the table exists, and BEFORE any handler module is imported,
 * the runtime starts every service in `BACKGROUND_SERVICES` in order and stops them in reverse
 * order on shutdown (after the HTTP server has drained, before DynamoDB Local stops).
 *
 * What belongs here (the import pipeline, design §6–7):
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

/** None yet: the local SQS server, the pollers and the reconciler come with the import pipeline. */
export const BACKGROUND_SERVICES: readonly LocalService[] = [];
