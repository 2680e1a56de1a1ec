/**
 * The stage's alarms: thresholds in one place, and one way to create an alarm that notifies the
 * alarm topic (on ALARM and when it recovers). What each alarm means and what to do is in
 * docs/deploying-aws.md "Alarms"; keep the two together.
 */
import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, SERVICE_DIMENSION } from '#functions/shared/metric-names.js';

/** Evaluation period of every alarm. */
export const ALARM_PERIOD = Duration.minutes(5);

export const THRESHOLDS = {
  /** Share of API requests answered 5xx, percent, in 2 consecutive periods (with ≥ MIN_REQUESTS requests). */
  api5xxPercent: 1,
  /** Requests in a period below which the 5xx rate is not judged (a single 500 of 3 requests is no outage). */
  apiMinRequests: 20,
  /** p90 of API latency, ms, in 3 consecutive periods (sign-in is ~100 ms; staging 10,000 users takes seconds). */
  apiLatencyP90Ms: 3_000,
  /**
   * Age of the oldest message in the import queue, in 3 consecutive periods: a migration on a
   * new table at the default concurrency drains ~154 users/s (a million in under 2 h), and
   * throttled users come back with growing delays, so hours of backlog are normal; this is "stuck".
   */
  importQueueAgeMinutes: 180,
  /** DynamoDB requests throttled (any operation), per period, in 3 consecutive periods. */
  tableThrottledRequests: 1,
  /** DynamoDB system errors (HTTP 500, retried by the SDK), per period. */
  tableSystemErrors: 10,
  /**
   * Share of password-migration hook checks that found the legacy system unavailable, percent, in
   * 2 consecutive periods (with ≥ hookMinChecks checks): pending users cannot sign in meanwhile.
   */
  hookUnavailablePercent: 10,
  /** Hook checks in a period below which the unavailable rate is not judged. */
  hookMinChecks: 10,
} as const;

/** Table operations the functions call (their throttles and system errors are alarmed; ≤ 10 metrics per alarm). */
export const TABLE_OPERATIONS: readonly Operation[] = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.TRANSACT_GET_ITEMS,
];

/** An alarm metric math expression may reference at most 10 metrics (CloudWatch hard limit). */
const MAX_METRICS_PER_ALARM = 10;

export interface NotifyingAlarmProps {
  readonly description: string;
  readonly metric: IMetric;
  readonly threshold: number;
  /** @default 1 */
  readonly evaluationPeriods?: number;
  /** @default GREATER_THAN_OR_EQUAL_TO_THRESHOLD */
  readonly comparison?: ComparisonOperator;
}

/**
 * An alarm that notifies `topic` when it fires and when it recovers. Missing data is "not
 * breaching": AWS publishes most of these metrics only while there is traffic.
 */
export function notifyingAlarm(scope: Construct, id: string, topic: ITopic, props: NotifyingAlarmProps): Alarm {
  const alarm = new Alarm(scope, id, {
    alarmDescription: props.description,
    metric: props.metric,
    threshold: props.threshold,
    evaluationPeriods: props.evaluationPeriods ?? 1,
    comparisonOperator: props.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  const action = new SnsAction(topic);
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
  return alarm;
}

/**
 * The password-migration hook's "unavailable" rate (docs/password-migration-hook.md): unavailable
 * checks over all checks, judged only with enough checks in the period.
 */
export function passwordHookAlarm(scope: Construct, topic: ITopic, metricsService: string): Alarm {
  const count = (metricName: string) =>
    new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { [SERVICE_DIMENSION]: metricsService },
      statistic: 'Sum',
      period: ALARM_PERIOD,
    });
  const usingMetrics = {
    ok: count(METRIC.passwordHookMatch),
    no: count(METRIC.passwordHookMismatch),
    down: count(METRIC.passwordHookUnavailable),
  };
  const rate = new MathExpression({
    expression: `IF((ok + no + down) >= ${THRESHOLDS.hookMinChecks}, 100 * down / (ok + no + down), 0)`,
    usingMetrics,
    period: ALARM_PERIOD,
    label: 'hook unavailable %',
  });
  return notifyingAlarm(scope, 'PasswordHookUnavailableAlarm', topic, {
    description: `Over ${THRESHOLDS.hookUnavailablePercent} % of password-migration hook checks found the legacy system unavailable for 10 minutes (pending users get 503; see docs/password-migration-hook.md)`,
    metric: rate,
    threshold: THRESHOLDS.hookUnavailablePercent,
    evaluationPeriods: 2,
    comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
  });
}

/** The sum of one Lambda metric over `functions` (≤ 10), as one alarmable series. */
function sumOfFunctions(functions: readonly IFunction[], metricOf: (fn: IFunction) => Metric, label: string): IMetric {
  if (functions.length === 0 || functions.length > MAX_METRICS_PER_ALARM) {
    throw new Error(`an alarm sums 1 to ${MAX_METRICS_PER_ALARM} functions, got ${functions.length}`);
  }
  if (functions.length === 1)
    return metricOf(functions[0] as IFunction).with({ period: ALARM_PERIOD, statistic: 'Sum' });
  const usingMetrics = Object.fromEntries(
    functions.map((fn, i) => [`f${i}`, metricOf(fn).with({ period: ALARM_PERIOD, statistic: 'Sum' })]),
  );
  return new MathExpression({
    expression: Object.keys(usingMetrics).join(' + '),
    usingMetrics,
    label,
    period: ALARM_PERIOD,
  });
}

/** `items` in consecutive chunks of at most `size`. */
function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Lambda errors and throttles of `functions`, one alarm pair per chunk of ≤ 10 functions (the
 * metric math limit), named after the functions they watch. Throttles of functions with reserved
 * concurrency 1 are expected (that is how they refuse to overlap) and are not alarmed.
 */
export function functionAlarms(
  scope: Construct,
  topic: ITopic,
  functions: readonly { readonly id: string; readonly fn: IFunction; readonly throttlesExpected?: boolean }[],
): Alarm[] {
  const alarms: Alarm[] = [];
  chunks(functions, MAX_METRICS_PER_ALARM).forEach((chunk, i) => {
    const names = chunk.map((f) => f.id).join(', ');
    alarms.push(
      notifyingAlarm(scope, `FunctionErrors${i}`, topic, {
        description: `Lambda errors (uncaught exceptions, timeouts, crashes) in: ${names}`,
        metric: sumOfFunctions(
          chunk.map((f) => f.fn),
          (fn) => fn.metricErrors(),
          'Errors',
        ),
        threshold: 1,
      }),
    );
    const throttled = chunk.filter((f) => !f.throttlesExpected);
    if (throttled.length === 0) return;
    alarms.push(
      notifyingAlarm(scope, `FunctionThrottles${i}`, topic, {
        description: `Lambda throttles (concurrency exhausted) in: ${throttled.map((f) => f.id).join(', ')}`,
        metric: sumOfFunctions(
          throttled.map((f) => f.fn),
          (fn) => fn.metricThrottles(),
          'Throttles',
        ),
        threshold: 1,
      }),
    );
  });
  return alarms;
}
