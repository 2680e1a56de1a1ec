/**
 * The worker manifest: every non-HTTP function of the core, as plain data. The CDK stack creates
 * one function and its event source per entry; the local runtime runs the same handlers from
 * pollers and timers with the semantics Lambda gives them.
 */

export type WorkerSource =
  /** SQS event source on the import queue, with partial batch responses. */
  | { readonly kind: 'import-queue'; readonly batchSize: number; readonly maxConcurrency: number }
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
  };
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
}

export const WORKERS: readonly WorkerDefinition[] = [
  {
    id: 'import-worker',
    handler: 'functions/workers/import-worker/handler.ts',
    source: { kind: 'import-queue', batchSize: 10, maxConcurrency: 50 },
    access: { table: 'write' },
    timeoutSeconds: 60,
    // One full vCPU: plain-text passwords are hashed here.
    memoryMb: 1769,
  },
  {
    id: 'dlq-consumer',
    handler: 'functions/workers/dlq-consumer/handler.ts',
    source: { kind: 'import-dlq', batchSize: 10, maxConcurrency: 2 },
    access: { table: 'write' },
    timeoutSeconds: 30,
    memoryMb: 512,
  },
  {
    id: 'reconciler',
    handler: 'functions/workers/reconciler/handler.ts',
    source: { kind: 'schedule', everyMinutes: 5 },
    access: { table: 'write', queue: 'send', backlog: 'read' },
    timeoutSeconds: 300,
    memoryMb: 1024,
  },
];

/** How often SQS may deliver a message before it moves to the dead-letter queue. */
export const IMPORT_MAX_RECEIVE_COUNT = 5;
