/**
 * What an operator of a deployed stage relies on: alarms that reach them, a migration dashboard
 * that reads the metrics the functions emit, API throttling, a reconciler that cannot overlap
 * itself, warm throughput and import concurrency from context, and cdk-nag's AWS Solutions rules.
 */
import { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '#functions/shared/env.js';
import { METRIC, METRICS_ENV, METRICS_NAMESPACE, serviceName } from '#functions/shared/metric-names.js';
import { TABLE_SCHEMA } from '#functions/storage/table.js';
import { WORKERS } from '#functions/workers.js';
import { TABLE_OPERATIONS, THRESHOLDS } from '../../lib/alarms.js';
import {
  FASTEST_BATCH_MS,
  importConcurrencyFor,
  NEW_TABLE_WRITE_UNITS,
  TABLE_WRITE_UNITS_PER_USER,
} from '../../lib/capacity.js';
import { ContextError, DEFAULT_API_THROTTLE, stageConfigFromContext } from '../../lib/stage.js';
import { type Resource, resourcesOfType, type Synthesized, synth } from './synth.js';
import { routeFunctions } from './template-helpers.js';

let synthesized: Synthesized;
let templates: Template[];

beforeAll(() => {
  synthesized = synth({ context: { alarmEmail: 'ops@example.com' } });
  templates = [
    synthesized.dataTemplate,
    synthesized.apiTemplate,
    synthesized.workersTemplate,
    ...synthesized.groupTemplates,
  ];
});

interface AlarmMetric {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Record<string, unknown>;
}

/** The metrics an alarm reads, whether it watches one metric or a math expression. */
function alarmMetrics(alarm: Resource): AlarmMetric[] {
  const p = alarm.Properties ?? {};
  const dims = (list: { Name: string; Value: unknown }[] = []) =>
    Object.fromEntries(list.map((d) => [d.Name, d.Value]));
  if (p.MetricName) return [{ namespace: p.Namespace, name: p.MetricName, dimensions: dims(p.Dimensions) }];
  return (p.Metrics as { MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: [] } } }[])
    .filter((m) => m.MetricStat)
    .map((m) => ({
      namespace: m.MetricStat!.Metric.Namespace,
      name: m.MetricStat!.Metric.MetricName,
      dimensions: dims(m.MetricStat!.Metric.Dimensions),
    }));
}

const alarmsOf = (template: Template) => resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(([, a]) => a);
const allAlarms = () => templates.flatMap(alarmsOf);

describe('alarms', () => {
  it('notify the alarm topic when they fire and when they recover', () => {
    const alarms = allAlarms();
    expect(alarms.length).toBeGreaterThan(10);
    for (const alarm of alarms) {
      expect(alarm.Properties?.AlarmActions, alarm.Properties?.AlarmDescription).toHaveLength(1);
      expect(alarm.Properties?.OKActions).toEqual(alarm.Properties?.AlarmActions);
    }
    const [topicId] = resourcesOfType(synthesized.dataTemplate, 'AWS::SNS::Topic')[0]!;
    for (const alarm of alarmsOf(synthesized.dataTemplate)) {
      expect(alarm.Properties?.AlarmActions).toEqual([{ Ref: topicId }]);
    }
  });

  it('watch every function for errors, and for throttles unless reserved concurrency 1 makes them expected', () => {
    for (const template of [synthesized.workersTemplate, ...synthesized.groupTemplates]) {
      const alarms = alarmsOf(template);
      const watching = (metric: string) =>
        alarms.flatMap((a) =>
          alarmMetrics(a)
            .filter((m) => m.namespace === 'AWS/Lambda' && m.name === metric)
            .map((m) => (m.dimensions.FunctionName as { Ref: string }).Ref),
        );
      for (const fn of routeFunctions([template])) {
        expect(
          watching('Errors').filter((id) => id === fn.logicalId),
          fn.routeId,
        ).toHaveLength(1);
        const reserved = WORKERS.find((w) => w.id === fn.routeId)?.reservedConcurrency === 1;
        expect(
          watching('Throttles').filter((id) => id === fn.logicalId),
          fn.routeId,
        ).toHaveLength(reserved ? 0 : 1);
      }
      for (const alarm of alarms) expect(alarmMetrics(alarm).length).toBeLessThanOrEqual(10);
    }
  });

  it('watch the API: 5xx rate over a minimum of requests, and p90 latency', () => {
    const alarms = alarmsOf(synthesized.apiTemplate);
    const rate = alarms.find((a) => a.Properties?.Metrics?.some((m: { Expression?: string }) => m.Expression));
    expect(rate?.Properties?.Metrics.find((m: { Expression?: string }) => m.Expression).Expression).toBe(
      `IF(requests >= ${THRESHOLDS.apiMinRequests}, 100 * errors / requests, 0)`,
    );
    expect(
      alarmMetrics(rate!)
        .map((m) => m.name)
        .sort(),
    ).toEqual(['5xx', 'Count']);
    expect(rate?.Properties).toMatchObject({ Threshold: THRESHOLDS.api5xxPercent, EvaluationPeriods: 2 });
    const latency = alarms.find((a) => a.Properties?.MetricName === 'Latency');
    expect(latency?.Properties).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      ExtendedStatistic: 'p90',
      Threshold: THRESHOLDS.apiLatencyP90Ms,
    });
  });

  it('watch the import queue age, dead letters, and the table for throttling and system errors on every operation', () => {
    const alarms = alarmsOf(synthesized.dataTemplate);
    const byMetric = (name: string) => alarms.filter((a) => alarmMetrics(a).some((m) => m.name === name));
    expect(byMetric('ApproximateAgeOfOldestMessage')[0]?.Properties).toMatchObject({
      Threshold: THRESHOLDS.importQueueAgeMinutes * 60,
      Statistic: 'Maximum',
      EvaluationPeriods: 3,
    });
    expect(byMetric('ApproximateNumberOfMessagesVisible')).toHaveLength(1);
    for (const name of ['ThrottledRequests', 'SystemErrors']) {
      const [alarm] = byMetric(name);
      expect(
        alarmMetrics(alarm!)
          .map((m) => m.dimensions.Operation)
          .sort(),
        name,
      ).toEqual([...TABLE_OPERATIONS].sort());
    }
  });

  it('go to an encrypted topic that refuses plain HTTP, with the e-mail address subscribed', () => {
    const topics = resourcesOfType(synthesized.dataTemplate, 'AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    const keyId = resourcesOfType(synthesized.dataTemplate, 'AWS::KMS::Key')[0]![0];
    expect(topics[0]![1].Properties?.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    synthesized.dataTemplate.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    synthesized.dataTemplate.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: [{ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }],
      },
    });
    const keyPolicy = resourcesOfType(synthesized.dataTemplate, 'AWS::KMS::Key')[0]![1].Properties?.KeyPolicy;
    expect(JSON.stringify(keyPolicy)).toContain('cloudwatch.amazonaws.com');
  });

  it('subscribe nobody without alarmEmail', () => {
    expect(resourcesOfType(synth().dataTemplate, 'AWS::SNS::Subscription')).toEqual([]);
  });
});

describe('migration dashboard', () => {
  let body: string;
  beforeAll(() => {
    const [, dashboard] = resourcesOfType(synthesized.workersTemplate, 'AWS::CloudWatch::Dashboard')[0]!;
    body = JSON.stringify(dashboard.Properties?.DashboardBody);
  });

  it("reads the functions' custom metrics by the names they emit them under", () => {
    for (const name of Object.values(METRIC)) {
      expect(body).toContain(`\\"${METRICS_NAMESPACE}\\",\\"${name}\\",\\"service\\",\\"${serviceName('test')}\\"`);
    }
  });

  it('shows the queues, the write units against the budget, throttles and the worker', () => {
    for (const metric of [
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesNotVisible',
      'ApproximateNumberOfMessagesDelayed',
      'ApproximateAgeOfOldestMessage',
      'ConsumedWriteCapacityUnits',
      'WriteThrottleEvents',
      'ThrottledRequests',
      'Duration',
      'ConcurrentExecutions',
    ]) {
      expect(body, metric).toContain(`\\"${metric}\\"`);
    }
    for (const index of TABLE_SCHEMA.globalIndexes) expect(body).toContain(`\\"${index.indexName}\\"`);
    expect(body).toContain(`\\"value\\":${NEW_TABLE_WRITE_UNITS}`);
  });
});

describe('functions', () => {
  it("carry the metrics namespace and the stage's service name", () => {
    const functions = routeFunctions([synthesized.workersTemplate, ...synthesized.groupTemplates]);
    for (const fn of functions) {
      expect(fn.properties.Environment.Variables, fn.routeId).toMatchObject({
        [METRICS_ENV.namespace]: METRICS_NAMESPACE,
        [METRICS_ENV.service]: serviceName('test'),
      });
    }
  });

  it('never overlap the reconciler: reserved concurrency 1, a refused run is not queued for hours', () => {
    for (const worker of WORKERS.filter((w) => w.reservedConcurrency !== undefined)) {
      const fn = routeFunctions([synthesized.workersTemplate]).find((f) => f.routeId === worker.id)!;
      expect(fn.properties.ReservedConcurrentExecutions).toBe(worker.reservedConcurrency);
    }
    expect(WORKERS.find((w) => w.id === 'reconciler')?.reservedConcurrency).toBe(1);
    const reconciler = routeFunctions([synthesized.workersTemplate]).find((f) => f.routeId === 'reconciler')!;
    synthesized.workersTemplate.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: reconciler.logicalId },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 240,
    });
  });

  it('grant table access on the table and each index by name, and * only to X-Ray', () => {
    for (const fn of routeFunctions([synthesized.workersTemplate, ...synthesized.groupTemplates])) {
      const wildcard = fn.statements.filter((s) => s.resources.includes('*'));
      expect(wildcard.flatMap((s) => s.actions).sort(), fn.routeId).toEqual([
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ]);
      expect(JSON.stringify(fn.statements), fn.routeId).not.toContain('/index/*');
    }
  });
});

describe('API stage throttling', () => {
  const stageThrottle = (s: Synthesized) =>
    resourcesOfType(s.apiTemplate, 'AWS::ApiGatewayV2::Stage')[0]![1].Properties?.DefaultRouteSettings;

  it('defaults to 500 requests/s with bursts of 1,000', () => {
    expect(DEFAULT_API_THROTTLE).toEqual({ rateLimit: 500, burstLimit: 1000 });
    expect(stageThrottle(synthesized)).toMatchObject({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 });
  });

  it('takes apiRateLimit and apiBurstLimit from context', () => {
    const s = synth({ context: { apiRateLimit: '50', apiBurstLimit: '75' } });
    expect(stageThrottle(s)).toMatchObject({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 75 });
  });
});

describe('throughput', () => {
  /** What the default ceiling is sized for: a new on-demand table an hour into an import at its capacity (two doublings). */
  const UNTUNED_TABLE_WRITE_UNITS = 4 * NEW_TABLE_WRITE_UNITS;
  const importMapping = (s: Synthesized) => {
    const worker = routeFunctions([s.workersTemplate]).find((f) => f.routeId === 'import-worker')!;
    return resourcesOfType(s.workersTemplate, 'AWS::Lambda::EventSourceMapping').find(
      ([, m]) => m.Properties?.FunctionName?.Ref === worker.logicalId,
    )![1].Properties;
  };
  const importWorker = WORKERS.find((w) => w.id === 'import-worker')!;
  const batchSize = importWorker.source.kind === 'import-queue' ? importWorker.source.batchSize : 0;

  const paceOf = (s: Synthesized) => {
    const worker = routeFunctions([s.workersTemplate]).find((f) => f.routeId === 'import-worker')!;
    const variables = worker.properties.Environment.Variables as Record<string, string>;
    return { writeUnits: variables[ENV.importWriteUnits], concurrency: variables[ENV.importConcurrency] };
  };

  it("sizes the worker manifest's default concurrency for a new table an hour into an import; the pace starts at a new table's", () => {
    const concurrency = importWorker.source.kind === 'import-queue' ? importWorker.source.maxConcurrency : 0;
    expect(concurrency).toBe(importConcurrencyFor(UNTUNED_TABLE_WRITE_UNITS, batchSize));
    // At the fastest measured batch, that many invocations fit in those units, one more does not.
    const writes = (invocations: number) =>
      ((invocations * batchSize * 1000) / FASTEST_BATCH_MS) * TABLE_WRITE_UNITS_PER_USER;
    expect(writes(concurrency)).toBeLessThanOrEqual(UNTUNED_TABLE_WRITE_UNITS);
    expect(writes(concurrency + 1)).toBeGreaterThan(UNTUNED_TABLE_WRITE_UNITS);
    expect(importMapping(synthesized)?.ScalingConfig).toEqual({ MaximumConcurrency: concurrency });
    expect(paceOf(synthesized)).toEqual({
      writeUnits: String(NEW_TABLE_WRITE_UNITS),
      concurrency: String(concurrency),
    });
    expect(resourcesOfType(synthesized.dataTemplate, 'AWS::DynamoDB::Table')[0]![1].Properties?.WarmThroughput).toBe(
      undefined,
    );
  });

  it('warms the table and every index from context, and starts the import at the warm throughput', () => {
    const s = synth({ context: { warmWriteUnits: '40000', warmReadUnits: '20000' } });
    const table = resourcesOfType(s.dataTemplate, 'AWS::DynamoDB::Table')[0]![1].Properties!;
    const warm = { ReadUnitsPerSecond: 20000, WriteUnitsPerSecond: 40000 };
    expect(table.WarmThroughput).toEqual(warm);
    for (const index of table.GlobalSecondaryIndexes) expect(index.WarmThroughput, index.IndexName).toEqual(warm);
    const concurrency = importConcurrencyFor(40_000, batchSize);
    expect(concurrency).toBeGreaterThan(10);
    expect(importMapping(s)?.ScalingConfig).toEqual({ MaximumConcurrency: concurrency });
    expect(paceOf(s)).toEqual({ writeUnits: '40000', concurrency: String(concurrency) });
    const body = JSON.stringify(
      resourcesOfType(s.workersTemplate, 'AWS::CloudWatch::Dashboard')[0]![1].Properties?.DashboardBody,
    );
    expect(body).toContain('\\"value\\":40000');
  });

  it('a warm throughput below what the default takes keeps the default ceiling', () => {
    const s = synth({ context: { warmWriteUnits: '8000' } });
    const concurrency = importWorker.source.kind === 'import-queue' ? importWorker.source.maxConcurrency : 0;
    expect(importMapping(s)?.ScalingConfig).toEqual({ MaximumConcurrency: concurrency });
    expect(paceOf(s)).toEqual({ writeUnits: '8000', concurrency: String(concurrency) });
  });

  it('takes an explicit importMaxConcurrency over the derived one, and an importMaxWriteUnits ceiling', () => {
    const s = synth({ context: { warmWriteUnits: '40000', importMaxConcurrency: '7', importMaxWriteUnits: '30000' } });
    expect(importMapping(s)?.ScalingConfig).toEqual({ MaximumConcurrency: 7 });
    expect(paceOf(s)).toEqual({ writeUnits: '40000,30000', concurrency: '7' });
  });
});

describe('context', () => {
  const read = (context: Record<string, string>) => (name: string) => context[name];

  it('refuses numbers out of range or not whole, naming the setting and the rule', () => {
    const cases: [string, string, RegExp][] = [
      ['warmWriteUnits', '3999', /warmWriteUnits must be a whole number from 4000/],
      ['warmReadUnits', '11999', /warmReadUnits must be a whole number from 12000/],
      ['importMaxConcurrency', '1', /importMaxConcurrency must be a whole number from 2 to 1000/],
      ['importMaxConcurrency', '1001', /importMaxConcurrency/],
      ['importMaxWriteUnits', '99', /importMaxWriteUnits must be a whole number from 100/],
      ['apiRateLimit', '0', /apiRateLimit/],
      ['apiBurstLimit', '-1', /apiBurstLimit/],
      ['alarmEmail', 'not-an-address', /alarmEmail must be an e-mail address/],
    ];
    for (const [name, value, message] of cases) {
      expect(() => stageConfigFromContext(read({ [name]: value })), `${name}=${value}`).toThrow(ContextError);
      expect(() => stageConfigFromContext(read({ [name]: value }))).toThrow(message);
    }
  });

  it('accepts exactly the whole numbers in range, for any text given', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.integer().map(String),
          fc.double().map(String),
          fc.constantFrom(' ', '\t', ' 7 ', '007', '1e2'),
        ),
        (raw) => {
          const value = Number(raw.trim());
          const valid = /^\d+$/.test(raw.trim()) && value >= 2 && value <= 1000;
          let outcome: number | undefined | 'refused';
          try {
            outcome = stageConfigFromContext(read({ importMaxConcurrency: raw })).importMaxConcurrency;
          } catch (error) {
            expect(error).toBeInstanceOf(ContextError);
            outcome = 'refused';
          }
          if (raw.trim() === '') expect(outcome).toBeUndefined();
          else expect(outcome).toBe(valid ? value : 'refused');
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('cdk-nag (AWS Solutions rules)', () => {
  it('finds nothing unacknowledged in the whole stage', () => {
    expect(() => synth({ context: { alarmEmail: 'ops@example.com' } }).app.synth({ force: true })).not.toThrow();
  });

  it('stops synthesis on a finding nobody acknowledged', () => {
    const s = synth();
    // A queue without a dead-letter queue or TLS enforcement: AwsSolutions-SQS3 and SQS4.
    new Queue(new Stack(s.app, 'Careless'), 'Queue');
    expect(() => s.app.synth({ force: true })).toThrow(/AwsSolutions-SQS[34]/);
  });
});
