import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { ENV } from '#functions/shared/env.js';
import type { WorkerDefinition } from '#functions/workers.js';
import { functionAlarms, passwordHookAlarm } from './alarms.js';
import type { ImportQueue } from './constructs/import-queue.js';
import { MigrationDashboard } from './constructs/migration-dashboard.js';
import { ServiceFunction } from './constructs/service-function.js';
import { pascalCase } from './names.js';

export interface WorkersStackProps extends StackProps {
  /** The worker manifest (functions/workers.ts); one function and its trigger per entry. */
  readonly workers: readonly WorkerDefinition[];
  readonly table: ITable;
  /** The key sealing credentials at rest (data stack); granted per worker's `access.credentials`. */
  readonly credentialsKey: IKey;
  /** Every table name with this prefix is an app table the functions may use (lib/tables.ts). */
  readonly appTablePrefix: string;
  /** The import queue and its DLQ (data stack), sized for the consumers' timeouts. */
  readonly importQueue: ImportQueue;
  /** Keep log groups when they leave the stack. */
  readonly retain: boolean;
  readonly logRetention: RetentionDays;
  /** `LOG_LEVEL` of every function. @default - the functions' own default (info) */
  readonly logLevel?: string;
  /** Every alarm notifies this topic (data stack). */
  readonly alarmTopic: ITopic;
  /** Environment every function gets besides its own (metrics namespace and service name). */
  readonly commonEnvironment: Readonly<Record<string, string>>;
  /** The import worker's event-source maximum concurrency. @default the worker manifest's */
  readonly importMaxConcurrency?: number;
  /** Table write units per second an import may use at most (its pace's ceiling). @default none */
  readonly importMaxWriteUnits?: number;
  /** The custom metrics' service dimension (functions/shared/metric-names.ts). */
  readonly metricsService: string;
  /** Write units per second the table serves at once (drawn on the dashboard). */
  readonly tableWriteUnits: number;
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
        ...(worker.access.credentials === undefined ? {} : { credentials: worker.access.credentials }),
        // Workers serve no HTTP request: no API key to check, so no API-keys secret (nor its layer).
        environment: {
          ...props.commonEnvironment,
          ...(props.logLevel === undefined ? {} : { [ENV.logLevel]: props.logLevel }),
        },
        ...(worker.reservedConcurrency === undefined
          ? {}
          : { reservedConcurrentExecutions: worker.reservedConcurrency }),
      });
      fn.bindTable(props.table, worker.access.table).bindAppTables(props.appTablePrefix, worker.access.table);
      if (worker.access.queue) fn.bindQueue(importQueue.queue, worker.access.queue, ENV.importQueueUrl);
      if (worker.access.credentials) fn.bindCredentials(props.credentialsKey, worker.access.credentials);
      if (worker.access.backlog) {
        fn.watchQueue(importQueue.queue, ENV.importQueueUrl).watchQueue(importQueue.deadLetterQueue, ENV.importDlqUrl);
      }

      const { source } = worker;
      switch (source.kind) {
        case 'import-queue': {
          assertFits(worker, importQueue.workerTimeout, 'import queue');
          const maxConcurrency = props.importMaxConcurrency ?? source.maxConcurrency;
          fn.consumeQueue(importQueue.queue, ENV.importQueueUrl, { ...source, maxConcurrency });
          // Its pace (functions/shared/import-pace.ts): what a table serves at first (a new one's,
          // or its warm throughput) and at most, shared among its invocations.
          fn.addEnvironment(
            ENV.importWriteUnits,
            [
              props.tableWriteUnits,
              ...(props.importMaxWriteUnits === undefined ? [] : [props.importMaxWriteUnits]),
            ].join(','),
          );
          fn.addEnvironment(ENV.importConcurrency, String(maxConcurrency));
          break;
        }
        case 'import-dlq':
          assertFits(worker, importQueue.deadLetterConsumerTimeout, 'import dead-letter queue');
          fn.consumeQueue(importQueue.deadLetterQueue, ENV.importDlqUrl, source);
          break;
        case 'schedule':
          // A run refused because the previous one still holds the reserved concurrency is retried
          // only until just before the next scheduled run (not for Lambda's default 6 hours, which
          // would line up stale runs), and a failed run is not retried: the next one comes anyway.
          fn.configureAsyncInvoke({
            retryAttempts: 0,
            maxEventAge: Duration.minutes(Math.max(1, source.everyMinutes - 1)),
          });
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

    functionAlarms(
      this,
      props.alarmTopic,
      props.workers.map((worker) => ({
        id: worker.id,
        fn: functions.get(worker.id) as ServiceFunction,
        throttlesExpected: worker.reservedConcurrency === 1,
      })),
    );
    passwordHookAlarm(this, props.alarmTopic, props.metricsService);
    const importWorker = props.workers.find((w) => w.source.kind === 'import-queue');
    if (importWorker) {
      new MigrationDashboard(this, 'MigrationDashboard', {
        dashboardName: `${this.stackName}-migration`,
        metricsService: props.metricsService,
        importQueue,
        table: props.table,
        tableWriteUnits: props.tableWriteUnits,
        importWorker: functions.get(importWorker.id) as ServiceFunction,
        importMaxConcurrency:
          props.importMaxConcurrency ??
          (importWorker.source.kind === 'import-queue' ? importWorker.source.maxConcurrency : 0),
      });
    }
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
