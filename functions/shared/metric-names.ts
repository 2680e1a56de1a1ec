/**
 * The core's own CloudWatch metrics, as plain data: the functions emit them in the Embedded Metric
 * Format (Powertools for AWS Lambda's Metrics reads the namespace and service from the two
 * environment variables below, which the stack sets on every function), and the stack's migration
 * dashboard and alarms read them by the same names. Nothing else may spell these strings.
 *
 * Every metric carries exactly one dimension, `service` (Powertools' default dimension), whose
 * value names the deployment (`auth-core-<stage>`), so two stages in one account never mix.
 * Counts are per event (one data point per request or batch with the number of users), so the
 * dashboard's per-minute sums are exact.
 */
export const METRICS_NAMESPACE = 'AuthCore';

/** The one dimension of every metric; its value is the deployment's service name. */
export const SERVICE_DIMENSION = 'service';

/** The service name of a stage: the value of {@link SERVICE_DIMENSION}. */
export const serviceName = (stage: string): string => `auth-core-${stage}`;

/** Environment variables Powertools' Metrics reads its namespace and service name from. */
export const METRICS_ENV = {
  namespace: 'POWERTOOLS_METRICS_NAMESPACE',
  service: 'POWERTOOLS_SERVICE_NAME',
} as const;

/** Metric names (unit: Count, one data point per request or worker batch). */
export const METRIC = {
  /** Users written as staged rows by `POST /bulk-import/users` (emitted by the staging route). */
  usersStaged: 'UsersStaged',
  /** Staged users imported (their staged row deleted with the user; emitted by the import worker). */
  usersImported: 'UsersImported',
  /** Staged rows turned FAILED (import worker: conflicts and invalid users; DLQ consumer: retries exhausted). */
  usersFailed: 'UsersFailed',
  /**
   * Staged users returned to the import queue with a delay because DynamoDB, SQS or KMS throttled
   * (backpressure: the import slows down, nobody fails; emitted by the import worker and the DLQ consumer).
   */
  importThrottled: 'ImportThrottled',
  /** Staging requests answered 503 with Retry-After because the table throttled within the request's budget. */
  stagingThrottled: 'StagingThrottled',
  /**
   * Staging requests that ran out of time and stopped at a group boundary (503 with Retry-After, the
   * groups written kept; the client sends the request again): requests too large for the time.
   */
  stagingOutOfTime: 'StagingOutOfTime',
  /** Password-migration hook checks that answered "match" (sign-in route; docs/password-migration-hook.md). */
  passwordHookMatch: 'PasswordHookMatch',
  /** Password-migration hook checks that answered "mismatch". */
  passwordHookMismatch: 'PasswordHookMismatch',
  /** Password-migration hook checks that found the legacy system unavailable (503; the breaker's refusals included). */
  passwordHookUnavailable: 'PasswordHookUnavailable',
} as const;

/** Durations (unit: Milliseconds, one data point per call). */
export const LATENCY_METRIC = {
  /** How long one password-migration hook check took (calls the breaker refused are not counted). */
  passwordHookLatency: 'PasswordHookLatency',
} as const;

export type LatencyMetricName = (typeof LATENCY_METRIC)[keyof typeof LATENCY_METRIC];

export type MetricName = (typeof METRIC)[keyof typeof METRIC];
