/**
 * The core's custom metrics, emitted in CloudWatch's Embedded Metric Format by Powertools for AWS
 * Lambda's Metrics: one JSON document per event (a staging request, a worker batch) on stdout,
 * which Lambda sends to CloudWatch Logs and CloudWatch turns into metrics — no API call, nothing
 * to wait for. Names, namespace and the one dimension come from metric-names.ts; the namespace
 * and service are read from the environment the stack sets (METRICS_ENV), locally they default to
 * `AuthCore` / `auth-core-local`. Locally the documents go to stdout like every log line;
 * `POWERTOOLS_METRICS_DISABLED=true` silences them (the tests do).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { type LatencyMetricName, METRIC, METRICS_ENV, METRICS_NAMESPACE, type MetricName } from './metric-names.js';

/** Counts to emit together, by metric name (zero or absent counts are left out). */
export type MetricCounts = Partial<Record<MetricName, number>>;

/** The port use cases emit through (so the domain stays free of I/O). */
export interface MetricsPort {
  record(counts: MetricCounts): void;
}

let metrics: Metrics | undefined;

function instance(): Metrics {
  metrics ??= new Metrics({
    namespace: process.env[METRICS_ENV.namespace] || METRICS_NAMESPACE,
    serviceName: process.env[METRICS_ENV.service] || 'auth-core-local',
  });
  return metrics;
}

const KNOWN = new Set<string>(Object.values(METRIC));

/** Emits one EMF document holding every positive count (nothing when there is none). */
export function recordMetrics(counts: MetricCounts): void {
  const entries = Object.entries(counts).filter(
    (entry): entry is [MetricName, number] => KNOWN.has(entry[0]) && typeof entry[1] === 'number' && entry[1] > 0,
  );
  if (entries.length === 0) return;
  const m = instance();
  for (const [name, value] of entries) m.addMetric(name, MetricUnit.Count, value);
  m.publishStoredMetrics();
}

/** Emits one EMF document with `counts` and one duration (Milliseconds), e.g. a hook call's. */
export function recordLatency(name: LatencyMetricName, ms: number, counts: MetricCounts = {}): void {
  const m = instance();
  for (const [metric, value] of Object.entries(counts)) {
    if (KNOWN.has(metric) && typeof value === 'number' && value > 0) m.addMetric(metric, MetricUnit.Count, value);
  }
  m.addMetric(name, MetricUnit.Milliseconds, Math.max(0, ms));
  m.publishStoredMetrics();
}

/** {@link recordMetrics} as a port. */
export const emfMetrics: MetricsPort = { record: recordMetrics };
