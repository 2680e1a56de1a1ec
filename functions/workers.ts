/**
 * The worker manifest: every non-HTTP function of the core, as plain data. The CDK stack creates
 * one function and its event source per entry; the local runtime runs the same handlers from
 * pollers and timers with the semantics Lambda gives them.
 *
 * "Worker", in functions/, means one of these: a function a queue or a schedule invokes (the
 * import worker, the DLQ consumer, the reconciler), run in the shell of functions/workers/shell.ts.
 * The local runtime's threads that play Lambda's execution contexts (bin/local/worker-pool.ts) are
 * worker threads, a different thing.
 */

import type { CredentialsAccess } from './routes.js';

export type WorkerSource =
  /** SQS event source on the import queue, with partial batch responses. */
  | {
      readonly kind: 'import-queue';
      readonly batchSize: number;
      readonly maxConcurrency: number;
      /** Seconds Lambda may gather a batch of more than 10 messages (required above 10). */
      readonly batchingWindowSeconds?: number;
    }
  /** SQS event source on the import queue's dead-letter queue, with partial batch responses. */
  | { readonly kind: 'import-dlq'; readonly batchSize: number; readonly maxConcurrency: number }
  /** A fixed-rate schedule (EventBridge on AWS, a timer locally). */
  | { readonly kind: 'schedule'; readonly everyMinutes: number };

export interface WorkerDefinition {
  readonly id: string;
  /** Repository-relative path of the module that exports `handler`. */
  readonly handler: string;
  readonly source: WorkerSource;
  readonly access: {
    readonly table: 'read' | 'write';
    readonly queue?: 'send';
    /** Reads how many messages the import queue and its DLQ hold (sqs:GetQueueAttributes on both). */
    readonly backlog?: 'read';
    /** See functions/routes.ts. */
    readonly credentials?: CredentialsAccess;
  };
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /**
   * The time budget of its storage calls (functions/workers/shell.ts): retries stop `reserveSeconds`
   * before the timeout, leaving time to hand messages back, and `storageAttempts` replaces each
   * call's own attempts. @default no budget: calls retry as they would outside any invocation
   */
  readonly budget?: { readonly reserveSeconds: number; readonly storageAttempts?: number };
  /**
   * Reserved concurrency: at most this many instances at once (and never starved by the others).
   * 1 makes a scheduled worker unable to overlap itself. @default none
   */
  readonly reservedConcurrency?: number;
}

export const WORKERS: readonly WorkerDefinition[] = [
  {
    id: 'import-worker',
    handler: 'functions/workers/import-worker/handler.ts',
    // At most this many invocations at once: the ceiling under which the import paces itself to
    // its table (functions/shared/import-pace.ts). Sized for what a new on-demand table grows to
    // in the first hour of an import at its capacity (16,000 write units per second) at the
    // fastest measured batch: 8. With warm throughput the stack sizes it for that (40,000: 20);
    // -c importMaxConcurrency sets it. Below it, invocations the table has no room for wait for
    // the pace (and are billed). The figures are measurement 5 of `npm run bench`
    // (docs/performance.md "A million users on AWS (measurement 5)"); lib/capacity.ts holds the
    // arithmetic; an infra test keeps the two in step.
    // 32 messages per invocation: their rows are claimed in one transaction and their users
    // imported in one (3 actions each, plus the 2 user counters, the staged counter and the
    // primary-users guard: 100 actions, DynamoDB's limit), so the writes a transaction shares are
    // paid once per 32 users instead of once per 10 (docs/performance.md "What bounds the cost").
    // Above 10, Lambda needs a batching window; with a backlog the batch is full at once.
    source: { kind: 'import-queue', batchSize: 32, batchingWindowSeconds: 1, maxConcurrency: 8 },
    // Opens the staged rows' sealed credentials to import them, and seals the TOTP secrets it
    // imports; sends back to the queue, with a delay, the messages that met backpressure
    // (IMPORT_BACKPRESSURE, functions/domain/bulk-import/backoff.ts).
    access: { table: 'write', credentials: 'seal-and-open', queue: 'send' },
    timeoutSeconds: 60,
    // One full vCPU: plain-text passwords are hashed here.
    memoryMb: 1769,
    // It stops starting work 10 s before its timeout, so it can return the messages it did not
    // finish (with a delay) instead of being cut off. 3 attempts per storage call (the SDK's own
    // retries come on top): when the table keeps pushing back, waiting in the queue costs nothing,
    // waiting in an invocation costs its duration — so it gives up early and returns the message.
    budget: { reserveSeconds: 10, storageAttempts: 3 },
  },
  {
    id: 'dlq-consumer',
    handler: 'functions/workers/dlq-consumer/handler.ts',
    source: { kind: 'import-dlq', batchSize: 10, maxConcurrency: 2 },
    // send: a message that reached the DLQ only because of backpressure goes back to the import queue.
    access: { table: 'write', queue: 'send' },
    timeoutSeconds: 30,
    memoryMb: 512,
    // Its storage retries stop 5 s before the timeout, leaving time to send the re-queued copies
    // and the metrics and to answer with the batch's failures.
    budget: { reserveSeconds: 5 },
  },
  {
    id: 'reconciler',
    handler: 'functions/workers/reconciler/handler.ts',
    source: { kind: 'schedule', everyMinutes: 5 },
    access: { table: 'write', queue: 'send', backlog: 'read' },
    timeoutSeconds: 300,
    memoryMb: 1024,
    // Storage retries stop 10 s before the timeout, so a run that meets a busy table ends cleanly.
    budget: { reserveSeconds: 10 },
    // A run may take up to its timeout (5 min, the schedule's period): never two at once.
    reservedConcurrency: 1,
  },
];

/** The workers of this manifest, by id. */
export type WorkerId = 'import-worker' | 'dlq-consumer' | 'reconciler';

/** The manifest entry of a worker: the one place its timeout and budget are read. */
export function workerNamed(id: WorkerId): WorkerDefinition {
  const found = WORKERS.find((w) => w.id === id);
  if (found === undefined) throw new Error(`functions/workers.ts has no ${id} entry`);
  return found;
}

/** How often SQS may deliver a message before it moves to the dead-letter queue. */
export const IMPORT_MAX_RECEIVE_COUNT = 5;
