import { Duration } from 'aws-cdk-lib';
import {
  Dashboard,
  GraphWidget,
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
      new GraphWidget({
        title: 'Users per minute',
        left: [
          custom(METRIC.usersStaged, 'staged'),
          custom(METRIC.usersImported, 'imported'),
          custom(METRIC.usersFailed, 'failed'),
        ],
        width: WIDTH,
        height: HEIGHT,
      }),
      new GraphWidget({
        title: 'Throttled (retried later, per minute)',
        left: [
          custom(METRIC.importThrottled, 'import: users returned with a delay'),
          custom(METRIC.stagingThrottled, 'staging: requests answered 503'),
        ],
        width: WIDTH,
        height: HEIGHT,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Import queue (messages)',
        left: [
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
        ],
        width: WIDTH,
        height: HEIGHT,
      }),
      new GraphWidget({
        title: 'Oldest message (seconds)',
        left: [
          queue.metricApproximateAgeOfOldestMessage({ ...perMinute, statistic: Stats.MAXIMUM, label: 'import queue' }),
          deadLetterQueue.metricApproximateAgeOfOldestMessage({
            ...perMinute,
            statistic: Stats.MAXIMUM,
            label: 'dead-letter queue',
          }),
        ],
        width: WIDTH,
        height: HEIGHT,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Write units per second',
        left: [perSecond(tableWrites, 'table WRU/s'), ...indexWrites],
        leftAnnotations: [{ value: props.tableWriteUnits, label: 'write budget (new table / warm throughput)' }],
        width: WIDTH,
        height: HEIGHT,
      }),
      new GraphWidget({
        title: 'Throttled (per minute)',
        left: [
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
        ],
        width: WIDTH,
        height: HEIGHT,
      }),
    );
    // The password-migration hook (docs/password-migration-hook.md): what the legacy system answers
    // at first sign-ins, and how long it takes (the app's budget is at most 5,000 ms).
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Password-migration hook (checks per minute)',
        left: [
          custom(METRIC.passwordHookMatch, 'match (migrated)'),
          custom(METRIC.passwordHookMismatch, 'mismatch (wrong password)'),
          custom(METRIC.passwordHookUnavailable, 'unavailable (503, user stays pending)'),
        ],
        width: WIDTH,
        height: HEIGHT,
      }),
      new GraphWidget({
        title: 'Password-migration hook latency (ms)',
        left: [
          custom(LATENCY_METRIC.passwordHookLatency, 'p50', Stats.p(50)),
          custom(LATENCY_METRIC.passwordHookLatency, 'p99', Stats.p(99)),
        ],
        width: WIDTH,
        height: HEIGHT,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Import worker duration (ms)',
        left: [
          props.importWorker.metricDuration({ ...perMinute, statistic: Stats.AVERAGE, label: 'average' }),
          props.importWorker.metricDuration({ ...perMinute, statistic: Stats.p(99), label: 'p99' }),
        ],
        width: WIDTH,
        height: HEIGHT,
      }),
      new GraphWidget({
        title: 'Import worker concurrency',
        left: [
          props.importWorker.metric('ConcurrentExecutions', {
            ...perMinute,
            statistic: Stats.MAXIMUM,
            label: 'running',
          }),
          props.importWorker.metricErrors({ ...perMinute, statistic: Stats.SUM, label: 'errors' }),
          props.importWorker.metricThrottles({ ...perMinute, statistic: Stats.SUM, label: 'throttles' }),
        ],
        leftAnnotations: [{ value: props.importMaxConcurrency, label: 'maximum concurrency' }],
        width: WIDTH,
        height: HEIGHT,
      }),
    );
  }
}
