import { Duration } from 'aws-cdk-lib';
import {
  Dashboard,
  GraphWidget,
  type HorizontalAnnotation,
  type IMetric,
  MathExpression,
  Metric,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import {
  LATENCY_METRIC,
  type LatencyMetricName,
  METRIC,
  METRICS_NAMESPACE,
  type MetricName,
  SERVICE_DIMENSION,
} from '#functions/shared/metric-names.js';
import { TABLE_SCHEMA } from '#functions/storage/table.js';
import { TABLE_OPERATIONS } from '../alarms.js';
import type { ImportQueue } from './import-queue.js';

export interface MigrationDashboardProps {
  readonly dashboardName: string;
  /** Value of the custom metrics' `service` dimension (functions/shared/metric-names.ts). */
  readonly metricsService: string;
  readonly importQueue: ImportQueue;
  readonly table: ITable;
  /** Write units per second the table serves at once (4,000 new, or its warm throughput). */
  readonly tableWriteUnits: number;
  readonly importWorker: IFunction;
  readonly importMaxConcurrency: number;
}

const MINUTE = Duration.minutes(1);
const WIDTH = 12;
const HEIGHT = 6;

/**
 * One page to watch a migration: users staged / imported / failed per minute (the functions'
 * custom metrics), the import queue, the table's write units against its budget, and the import
 * worker's duration and concurrency against its cap.
 */
export class MigrationDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MigrationDashboardProps) {
    super(scope, id);
    const custom = (name: MetricName | LatencyMetricName, label: string, statistic: string = Stats.SUM): Metric =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: name,
        dimensionsMap: { [SERVICE_DIMENSION]: props.metricsService },
        statistic,
        period: MINUTE,
        label,
      });
    const { queue, deadLetterQueue } = props.importQueue;
    const perMinute = { period: MINUTE };
    // Sums per minute shown per second; each expression's metric needs its own id in a graph.
    let expressions = 0;
    const perSecond = (metric: IMetric, label: string) => {
      const id = `m${expressions++}`;
      return new MathExpression({ expression: `${id} / 60`, usingMetrics: { [id]: metric }, label, period: MINUTE });
    };
    const tableWrites = props.table.metric('ConsumedWriteCapacityUnits', { ...perMinute, statistic: Stats.SUM });
    const indexWrites = TABLE_SCHEMA.globalIndexes.map((index) =>
      perSecond(
        props.table.metric('ConsumedWriteCapacityUnits', {
          ...perMinute,
          statistic: Stats.SUM,
          dimensionsMap: { TableName: props.table.tableName, GlobalSecondaryIndexName: index.indexName },
        }),
        `${index.indexName} WRU/s`,
      ),
    );

    const graph = (title: string, left: IMetric[], leftAnnotations?: HorizontalAnnotation[]) =>
      new GraphWidget({ title, left, ...(leftAnnotations ? { leftAnnotations } : {}), width: WIDTH, height: HEIGHT });

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown:
          '## Migration\nDone when the import queue is empty and `GET /bulk-import/users/count?status=NEW` + `PROCESSING` = 0. ' +
          'Throttled users are not failures: they come back later (backpressure). ' +
          `The write budget line is what the table serves at once (${props.tableWriteUnits} WRU/s); see docs/deploying-aws.md on warm throughput.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph('Users per minute', [
        custom(METRIC.usersStaged, 'staged'),
        custom(METRIC.usersImported, 'imported'),
        custom(METRIC.usersFailed, 'failed'),
      ]),
      graph('Throttled (retried later, per minute)', [
        custom(METRIC.importThrottled, 'import: users returned with a delay'),
        custom(METRIC.stagingThrottled, 'staging: requests answered 503'),
        custom(METRIC.stagingOutOfTime, 'staging: requests out of time (503, sent again)'),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Import queue (messages)', [
        queue.metricApproximateNumberOfMessagesVisible({ ...perMinute, statistic: Stats.MAXIMUM, label: 'waiting' }),
        queue.metricApproximateNumberOfMessagesNotVisible({
          ...perMinute,
          statistic: Stats.MAXIMUM,
          label: 'in flight',
        }),
        queue.metric('ApproximateNumberOfMessagesDelayed', {
          ...perMinute,
          statistic: Stats.MAXIMUM,
          label: 'delayed (backpressure)',
        }),
        deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          ...perMinute,
          statistic: Stats.MAXIMUM,
          label: 'dead letters',
        }),
      ]),
      graph('Oldest message (seconds)', [
        queue.metricApproximateAgeOfOldestMessage({ ...perMinute, statistic: Stats.MAXIMUM, label: 'import queue' }),
        deadLetterQueue.metricApproximateAgeOfOldestMessage({
          ...perMinute,
          statistic: Stats.MAXIMUM,
          label: 'dead-letter queue',
        }),
      ]),
    );
    this.dashboard.addWidgets(
      graph(
        'Write units per second',
        [perSecond(tableWrites, 'table WRU/s'), ...indexWrites],
        [{ value: props.tableWriteUnits, label: 'write budget (new table / warm throughput)' }],
      ),
      graph('Throttled (per minute)', [
        props.table.metricThrottledRequestsForOperations({
          operations: [...TABLE_OPERATIONS],
          period: MINUTE,
          label: 'throttled requests',
        }),
        props.table.metric('WriteThrottleEvents', {
          ...perMinute,
          statistic: Stats.SUM,
          label: 'write throttle events',
        }),
        props.table.metric('ReadThrottleEvents', {
          ...perMinute,
          statistic: Stats.SUM,
          label: 'read throttle events',
        }),
      ]),
    );
    // The password-migration hook (docs/password-migration-hook.md): what the legacy system answers
    // at first sign-ins, and how long it takes (the app's budget is at most 5,000 ms).
    this.dashboard.addWidgets(
      graph('Password-migration hook (checks per minute)', [
        custom(METRIC.passwordHookMatch, 'match (migrated)'),
        custom(METRIC.passwordHookMismatch, 'mismatch (wrong password)'),
        custom(METRIC.passwordHookUnavailable, 'unavailable (503, user stays pending)'),
      ]),
      graph('Password-migration hook latency (ms)', [
        custom(LATENCY_METRIC.passwordHookLatency, 'p50', Stats.p(50)),
        custom(LATENCY_METRIC.passwordHookLatency, 'p99', Stats.p(99)),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Import worker duration (ms)', [
        props.importWorker.metricDuration({ ...perMinute, statistic: Stats.AVERAGE, label: 'average' }),
        props.importWorker.metricDuration({ ...perMinute, statistic: Stats.p(99), label: 'p99' }),
      ]),
      graph(
        'Import worker concurrency',
        [
          props.importWorker.metric('ConcurrentExecutions', {
            ...perMinute,
            statistic: Stats.MAXIMUM,
            label: 'running',
          }),
          props.importWorker.metricErrors({ ...perMinute, statistic: Stats.SUM, label: 'errors' }),
          props.importWorker.metricThrottles({ ...perMinute, statistic: Stats.SUM, label: 'throttles' }),
        ],
        [{ value: props.importMaxConcurrency, label: 'maximum concurrency' }],
      ),
    );
  }
}
