import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ENV } from '#functions/shared/env.js';
import type { WorkerDefinition } from '#functions/workers.js';
import type { ImportQueue } from './constructs/import-queue.js';
import { ServiceFunction } from './constructs/service-function.js';
import { pascalCase } from './names.js';

export interface WorkersStackProps extends StackProps {
  /** The worker manifest (functions/workers.ts); one function and its trigger per entry. */
  readonly workers: readonly WorkerDefinition[];
  readonly table: ITable;
  /** The import queue and its DLQ (data stack), sized for the consumers' timeouts. */
  readonly importQueue: ImportQueue;
  /** Keep log groups when they leave the stack. */
  readonly retain: boolean;
  readonly logRetention: RetentionDays;
  /** `LOG_LEVEL` of every function. @default - the functions' own default (info) */
  readonly logLevel?: string;
}

/**
 * Stateless: the import pipeline's functions, one per worker-manifest entry, each with its trigger
 * (an SQS event source with partial batch responses, or a fixed-rate EventBridge rule) and grants
 * derived from the entry's `access` and `source`. The queues they use stay in the data stack.
 */
export class WorkersStack extends Stack {
  /** The worker functions by manifest id. */
  readonly functions: ReadonlyMap<string, ServiceFunction>;

  constructor(scope: Construct, id: string, props: WorkersStackProps) {
    super(scope, id, props);
    const { importQueue } = props;
    const functions = new Map<string, ServiceFunction>();

    for (const worker of props.workers) {
      const name = pascalCase(worker.id);
      const timeout = Duration.seconds(worker.timeoutSeconds);
      const fn = new ServiceFunction(this, name, {
        entry: worker.handler,
        description: `${worker.id}: ${describeSource(worker)}`,
        timeout,
        memorySize: worker.memoryMb,
        logRetention: props.logRetention,
        logRemovalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
        environment: props.logLevel === undefined ? {} : { [ENV.logLevel]: props.logLevel },
      });
      fn.bindTable(props.table, worker.access.table);
      if (worker.access.queue) fn.bindQueue(importQueue.queue, worker.access.queue, ENV.importQueueUrl);
      if (worker.access.backlog) {
        fn.watchQueue(importQueue.queue, ENV.importQueueUrl).watchQueue(importQueue.deadLetterQueue, ENV.importDlqUrl);
      }

      const { source } = worker;
      switch (source.kind) {
        case 'import-queue':
          assertFits(worker, importQueue.workerTimeout, 'import queue');
          fn.consumeQueue(importQueue.queue, ENV.importQueueUrl, source);
          break;
        case 'import-dlq':
          assertFits(worker, importQueue.deadLetterConsumerTimeout, 'import dead-letter queue');
          fn.consumeQueue(importQueue.deadLetterQueue, ENV.importDlqUrl, source);
          break;
        case 'schedule':
          new Rule(this, `${name}Schedule`, {
            description: `Runs ${worker.id} every ${source.everyMinutes} minutes`,
            schedule: Schedule.rate(Duration.minutes(source.everyMinutes)),
            targets: [new LambdaFunction(fn)],
          });
          break;
      }
      functions.set(worker.id, fn);
    }
    this.functions = functions;
  }
}

function describeSource(worker: WorkerDefinition): string {
  const { source } = worker;
  switch (source.kind) {
    case 'import-queue':
      return 'consumes the bulk-import queue';
    case 'import-dlq':
      return 'consumes the bulk-import dead-letter queue';
    case 'schedule':
      return `runs every ${source.everyMinutes} minutes`;
  }
}

/** A consumer running longer than the timeout its queue's visibility was sized for would see its batch redelivered. */
function assertFits(worker: WorkerDefinition, sizedFor: Duration, queue: string): void {
  if (worker.timeoutSeconds > sizedFor.toSeconds()) {
    throw new Error(
      `${worker.id} times out after ${worker.timeoutSeconds} s but the ${queue} was sized for ${sizedFor.toSeconds()} s`,
    );
  }
}
