import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '#functions/shared/env.js';
import { IMPORT_MAX_RECEIVE_COUNT, WORKERS, type WorkerDefinition } from '#functions/workers.js';
import { MAX_RESOURCES_PER_STACK, VISIBILITY_TIMEOUT_FACTOR } from '../../lib/constants.js';
import { appTablePrefixOf } from '../../lib/tables.js';
import { PLACEHOLDER_HANDLER, type Resource, resourcesOfType, type Synthesized, synth } from './synth.js';
import {
  expectManifestFunctions,
  importedFrom,
  prefixTablesArn,
  pseudoArn,
  type RouteFunction,
  resourceCount,
  routeFunctions,
} from './template-helpers.js';

const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:TransactWriteItems',
];
const SEND_ACTIONS = ['sqs:SendMessage', 'sqs:SendMessageBatch'];
const CONSUME_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:DeleteMessageBatch',
  'sqs:ChangeMessageVisibility',
];

const sorted = (values: readonly string[]) => [...values].sort();
const workerById = new Map(WORKERS.map((w) => [w.id, w]));
const sourcesOf = (kind: WorkerDefinition['source']['kind']) => WORKERS.filter((w) => w.source.kind === kind);

let synthesized: Synthesized;
let functions: RouteFunction[];
let queueId: string;
let dlqId: string;
let tableId: string;
let keyId: string;
let credentialsKeyId: string;

/** The data-stack resource a workers-stack value imports, as `logicalId` or `logicalId.Attribute`. */
function imported(value: unknown): string {
  const ref = importedFrom(synthesized.dataTemplate, value);
  if (ref === undefined) return `not imported: ${JSON.stringify(value)}`;
  return ref.attribute === 'Ref' ? ref.logicalId : `${ref.logicalId}.${ref.attribute}`;
}

function fnOf(workerId: string): RouteFunction {
  const fn = functions.find((f) => f.routeId === workerId);
  if (fn === undefined) throw new Error(`no function for worker ${workerId}`);
  return fn;
}

/** SQS actions the function may perform, per queue (`main` / `dlq` / anything else by its value). */
function sqsActionsByQueue(fn: RouteFunction): Record<string, string[]> {
  const byQueue: Record<string, string[]> = {};
  for (const statement of fn.statements) {
    const sqs = statement.actions.filter((a) => a.startsWith('sqs:'));
    if (sqs.length === 0) continue;
    for (const resource of statement.resources) {
      const target = imported(resource);
      const name = target === `${queueId}.Arn` ? 'main' : target === `${dlqId}.Arn` ? 'dlq' : target;
      byQueue[name] = sorted([...(byQueue[name] ?? []), ...sqs]);
    }
  }
  return byQueue;
}

/** `rate(5 minutes)`, `rate(1 hour)`, … → minutes. */
function rateMinutes(expression: unknown): number | undefined {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(String(expression));
  if (!match) return undefined;
  const unit = { minute: 1, hour: 60, day: 1440 }[match[2]!.replace(/s$/, '') as 'minute' | 'hour' | 'day'];
  return Number(match[1]) * unit;
}

function eventSourceMappings(): Resource[] {
  return resourcesOfType(synthesized.workersTemplate, 'AWS::Lambda::EventSourceMapping').map(([, r]) => r);
}

function queues(): [string, Resource][] {
  return resourcesOfType(synthesized.dataTemplate, 'AWS::SQS::Queue');
}

beforeAll(() => {
  synthesized = synth();
  functions = routeFunctions([synthesized.workersTemplate]);
  queueId = queues().find(([, q]) => q.Properties?.RedrivePolicy !== undefined)![0];
  dlqId = queues().find(([, q]) => q.Properties?.RedrivePolicy === undefined)![0];
  tableId = resourcesOfType(synthesized.dataTemplate, 'AWS::DynamoDB::Table')[0]![0];
  keyId = resourcesOfType(synthesized.dataTemplate, 'AWS::KMS::Key').find(([id]) => id.startsWith('DataKey'))![0];
  credentialsKeyId = resourcesOfType(synthesized.dataTemplate, 'AWS::KMS::Key').find(([id]) =>
    id.startsWith('CredentialsKey'),
  )![0];
});

describe('worker manifest', () => {
  it('has exactly one consumer per queue and a valid event-source concurrency', () => {
    expect(sourcesOf('import-queue')).toHaveLength(1);
    expect(sourcesOf('import-dlq')).toHaveLength(1);
    for (const worker of WORKERS) {
      if (worker.source.kind === 'schedule') continue;
      // Lambda's SQS event source: batch size 1–10 for a standard queue without a batching window,
      // up to 10,000 with one (1–300 s), maximum concurrency 2–1000.
      const window = 'batchingWindowSeconds' in worker.source ? worker.source.batchingWindowSeconds : undefined;
      expect(worker.source.batchSize).toBeGreaterThanOrEqual(1);
      expect(worker.source.batchSize).toBeLessThanOrEqual(window === undefined ? 10 : 10_000);
      if (window !== undefined) expect(window).toBeGreaterThanOrEqual(1);
      if (window !== undefined) expect(window).toBeLessThanOrEqual(300);
      expect(worker.source.maxConcurrency).toBeGreaterThanOrEqual(2);
      expect(worker.source.maxConcurrency).toBeLessThanOrEqual(1000);
    }
  });
});

describe('worker functions', () => {
  it('has one Lambda function per manifest entry, on Node.js 24 on ARM64 with the manifest timeout and memory', () => {
    expectManifestFunctions(
      functions,
      WORKERS.map((w) => w.id),
      (id) => workerById.get(id)!,
    );
    for (const fn of functions) expect(fn.properties.FunctionName, fn.routeId).toBeUndefined();
  });

  it('logs to its own log group with a retention', () => {
    const logGroups = new Map(resourcesOfType(synthesized.workersTemplate, 'AWS::Logs::LogGroup'));
    for (const fn of functions) {
      const logGroup = logGroups.get(fn.properties.LoggingConfig?.LogGroup?.Ref);
      expect(logGroup?.Properties?.RetentionInDays, fn.routeId).toBeGreaterThan(0);
    }
    expect(logGroups.size).toBe(WORKERS.length);
  });

  it('sets TABLE_NAME, and the URL of each queue the worker touches, to the data-stack resources', () => {
    for (const fn of functions) {
      const worker = workerById.get(fn.routeId)!;
      const variables: Record<string, unknown> = fn.properties.Environment?.Variables ?? {};
      const watches = worker.access.backlog === 'read';
      const usesQueue = worker.access.queue !== undefined || worker.source.kind === 'import-queue' || watches;
      const usesDlq = worker.source.kind === 'import-dlq' || watches;
      expect(imported(variables[ENV.tableName]), fn.routeId).toBe(tableId);
      expect(ENV.importQueueUrl in variables, fn.routeId).toBe(usesQueue);
      if (usesQueue) expect(imported(variables[ENV.importQueueUrl]), fn.routeId).toBe(queueId);
      expect(ENV.importDlqUrl in variables, fn.routeId).toBe(usesDlq);
      if (usesDlq) expect(imported(variables[ENV.importDlqUrl]), fn.routeId).toBe(dlqId);
      expect(variables, fn.routeId).not.toHaveProperty(ENV.apiKeysSecretArn);
    }
  });
});

describe('triggers', () => {
  it('attaches one SQS event source per queue worker, with partial batch responses and the manifest sizing', () => {
    const queueWorkers = WORKERS.filter((w) => w.source.kind !== 'schedule');
    expect(eventSourceMappings()).toHaveLength(queueWorkers.length);
    for (const worker of queueWorkers) {
      if (worker.source.kind === 'schedule') continue;
      const fn = fnOf(worker.id);
      const mappings = eventSourceMappings().filter((m) => m.Properties?.FunctionName?.Ref === fn.logicalId);
      expect(mappings, worker.id).toHaveLength(1);
      const mapping = mappings[0]!.Properties!;
      expect(imported(mapping.EventSourceArn), worker.id).toBe(
        `${worker.source.kind === 'import-queue' ? queueId : dlqId}.Arn`,
      );
      expect(mapping.FunctionResponseTypes, worker.id).toEqual(['ReportBatchItemFailures']);
      expect(mapping.BatchSize, worker.id).toBe(worker.source.batchSize);
      expect(mapping.MaximumBatchingWindowInSeconds, worker.id).toBe(
        'batchingWindowSeconds' in worker.source ? worker.source.batchingWindowSeconds : undefined,
      );
      expect(mapping.ScalingConfig, worker.id).toEqual({ MaximumConcurrency: worker.source.maxConcurrency });
      // A Lambda-managed source needs an enabled mapping without a filter that could drop messages.
      expect(mapping.Enabled ?? true, worker.id).toBe(true);
      expect(mapping.FilterCriteria, worker.id).toBeUndefined();
    }
  });

  it('runs each scheduled worker from an EventBridge rule at the manifest rate, allowed to invoke it', () => {
    const rules = resourcesOfType(synthesized.workersTemplate, 'AWS::Events::Rule');
    const scheduled = sourcesOf('schedule');
    expect(scheduled.length).toBeGreaterThan(0);
    expect(rules).toHaveLength(scheduled.length);
    const permissions = resourcesOfType(synthesized.workersTemplate, 'AWS::Lambda::Permission').map(([, p]) => p);
    for (const worker of scheduled) {
      if (worker.source.kind !== 'schedule') continue;
      const fn = fnOf(worker.id);
      const targeting = rules.filter(([, r]) =>
        ((r.Properties?.Targets ?? []) as { Arn: unknown }[]).some(
          (t) => JSON.stringify(t.Arn) === JSON.stringify({ 'Fn::GetAtt': [fn.logicalId, 'Arn'] }),
        ),
      );
      expect(targeting, worker.id).toHaveLength(1);
      const [ruleId, rule] = targeting[0]!;
      const minutes = worker.source.everyMinutes;
      expect(rateMinutes(rule.Properties?.ScheduleExpression), worker.id).toBe(minutes);
      expect(rule.Properties?.State).toBe('ENABLED');
      expect(rule.Properties?.Targets).toHaveLength(1);
      expect(
        permissions.filter(
          (p) =>
            p.Properties?.Principal === 'events.amazonaws.com' &&
            p.Properties?.Action === 'lambda:InvokeFunction' &&
            JSON.stringify(p.Properties?.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [fn.logicalId, 'Arn'] }) &&
            JSON.stringify(p.Properties?.SourceArn) === JSON.stringify({ 'Fn::GetAtt': [ruleId, 'Arn'] }),
        ),
        worker.id,
      ).toHaveLength(1);
    }
  });

  it('gives scheduled workers no event source and queue workers no schedule', () => {
    const mapped = new Set(eventSourceMappings().map((m) => m.Properties?.FunctionName?.Ref as string));
    for (const worker of sourcesOf('schedule')) expect(mapped.has(fnOf(worker.id).logicalId)).toBe(false);
    const ruleTargets = resourcesOfType(synthesized.workersTemplate, 'AWS::Events::Rule').flatMap(
      ([, r]) =>
        (r.Properties?.Targets as { Arn: { 'Fn::GetAtt': string[] } }[] | undefined)?.map(
          (t) => t.Arn['Fn::GetAtt'][0],
        ) ?? [],
    );
    for (const worker of WORKERS.filter((w) => w.source.kind !== 'schedule')) {
      expect(ruleTargets).not.toContain(fnOf(worker.id).logicalId);
    }
  });
});

describe('queue sizing against the synthesized workers', () => {
  it(`sizes each queue's visibility timeout at ≥ ${VISIBILITY_TIMEOUT_FACTOR} × its consumer's timeout`, () => {
    expect(VISIBILITY_TIMEOUT_FACTOR).toBeGreaterThanOrEqual(6);
    const visibility = new Map(queues().map(([id, q]) => [id, q.Properties?.VisibilityTimeout as number]));
    for (const [kind, queue] of [
      ['import-queue', queueId],
      ['import-dlq', dlqId],
    ] as const) {
      const consumer = fnOf(sourcesOf(kind)[0]!.id);
      expect(visibility.get(queue), kind).toBeGreaterThanOrEqual(6 * consumer.properties.Timeout);
    }
  });

  it('redrives to the DLQ after the manifest maxReceiveCount', () => {
    const main = queues().find(([id]) => id === queueId)![1];
    expect(main.Properties?.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: IMPORT_MAX_RECEIVE_COUNT,
    });
  });

  it('refuses a consumer that outlives the timeout its queue was sized for', () => {
    const tooSlow = WORKERS.map((w) =>
      w.source.kind === 'import-queue' ? { ...w, timeoutSeconds: w.timeoutSeconds + 1 } : w,
    );
    expect(() => synth({ workers: tooSlow })).toThrow(/import-worker times out after/);
  });
});

describe('least privilege from worker.access and worker.source', () => {
  it('lets only workers whose access says so send to the import queue, and nobody send to the DLQ', () => {
    for (const fn of functions) {
      const worker = workerById.get(fn.routeId)!;
      const byQueue = sqsActionsByQueue(fn);
      const sends = (queue: string) => (byQueue[queue] ?? []).filter((a) => SEND_ACTIONS.includes(a));
      if (worker.access.queue === 'send') expect(sends('main'), fn.routeId).toContain('sqs:SendMessage');
      else expect(sends('main'), fn.routeId).toEqual([]);
      expect(sends('dlq'), fn.routeId).toEqual([]);
    }
  });

  it('lets each queue worker consume exactly its own queue, and no other worker consume anything', () => {
    for (const fn of functions) {
      const worker = workerById.get(fn.routeId)!;
      const byQueue = sqsActionsByQueue(fn);
      const own = worker.source.kind === 'import-queue' ? 'main' : worker.source.kind === 'import-dlq' ? 'dlq' : null;
      for (const [queue, actions] of Object.entries(byQueue)) {
        expect(['main', 'dlq'], `${fn.routeId} touches ${queue}`).toContain(queue);
        const consumes = actions.filter((a) => CONSUME_ACTIONS.includes(a));
        if (queue === own)
          expect(consumes, fn.routeId).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']));
        else expect(consumes, `${fn.routeId} on ${queue}`).toEqual([]);
        expect(
          actions.filter((a) => a === 'sqs:*' || a.startsWith('sqs:Purge')),
          fn.routeId,
        ).toEqual([]);
      }
      if (own !== null) expect(Object.keys(byQueue), fn.routeId).toContain(own);
    }
  });

  it("lets workers that watch the backlog read both queues' message counts, and nothing else of the DLQ", () => {
    const watchers = WORKERS.filter((w) => w.access.backlog === 'read');
    expect(watchers.map((w) => w.id)).toEqual(['reconciler']);
    for (const fn of functions) {
      const worker = workerById.get(fn.routeId)!;
      const byQueue = sqsActionsByQueue(fn);
      if (worker.access.backlog === 'read') {
        expect(byQueue.main, fn.routeId).toContain('sqs:GetQueueAttributes');
        expect(byQueue.dlq, fn.routeId).toEqual(['sqs:GetQueueAttributes']);
      } else if (worker.source.kind !== 'import-dlq') {
        expect(byQueue.dlq, fn.routeId).toBeUndefined();
      }
    }
  });

  it('lets the DLQ consumer only send to the import queue (a user that got there for backpressure goes back)', () => {
    for (const worker of sourcesOf('import-dlq')) {
      const byQueue = sqsActionsByQueue(fnOf(worker.id));
      expect(Object.keys(byQueue).sort()).toEqual(['dlq', 'main']);
      expect(byQueue.main).toContain('sqs:SendMessage');
      expect(byQueue.main?.filter((a) => CONSUME_ACTIONS.includes(a))).toEqual([]);
    }
  });

  it('grants table actions by access level, on the table and its indexes only, never Scan', () => {
    for (const fn of functions) {
      const worker = workerById.get(fn.routeId)!;
      const dynamo = fn.statements.filter((s) => s.actions.some((a) => a.startsWith('dynamodb:')));
      const actions = dynamo.flatMap((s) => s.actions);
      expect(actions, fn.routeId).toContain('dynamodb:Query');
      if (worker.access.table === 'write') {
        expect(actions, fn.routeId).toEqual(
          expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']),
        );
      } else {
        expect(
          actions.filter((a) => WRITE_ACTIONS.includes(a)),
          fn.routeId,
        ).toEqual([]);
      }
      expect(
        actions.filter((a) => a === 'dynamodb:Scan' || a.includes('*') || /Table|Backup|Stream/.test(a)),
        fn.routeId,
      ).toEqual([]);
      const appTables = prefixTablesArn(appTablePrefixOf('test'));
      for (const resource of dynamo.flatMap((s) => s.resources)) {
        const direct = imported(resource);
        const index = imported((resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1][0]);
        // The base table, or the stage's app tables (by prefix), each with its indexes by name.
        const onAppTables = [appTables, ...['GSI1', 'GSI2', 'GSI3'].map((i) => `${appTables}/index/${i}`)];
        if (!onAppTables.includes(pseudoArn(resource) ?? '')) {
          expect([direct, index], fn.routeId).toContain(`${tableId}.Arn`);
        }
      }
      // Both, with the same actions; the prefix is the functions' dynamodb_table_name_prefix.
      const onPrefix = dynamo.filter((s) => s.resources.some((r) => pseudoArn(r) === appTables));
      expect(
        onPrefix.map((s) => sorted(s.actions)),
        fn.routeId,
      ).toEqual([sorted(dynamo.find((s) => s.resources.some((r) => imported(r) === `${tableId}.Arn`))!.actions)]);
      expect(fn.properties.Environment?.Variables?.[ENV.appTablePrefix], fn.routeId).toBe(appTablePrefixOf('test'));
    }
  });

  it('grants KMS actions on the data key, and on the credentials key only what access.credentials says', () => {
    for (const fn of functions) {
      const kms = fn.statements.filter((s) => s.actions.some((a) => a.startsWith('kms:')));
      expect(kms.length, fn.routeId).toBeGreaterThan(0);
      const credentials = kms.filter((s) => s.resources.some((r) => imported(r) === `${credentialsKeyId}.Arn`));
      for (const resource of kms.filter((s) => !credentials.includes(s)).flatMap((s) => s.resources)) {
        expect(imported(resource)).toBe(`${keyId}.Arn`);
      }
      const access = workerById.get(fn.routeId)!.access.credentials;
      const expected =
        access === 'open'
          ? ['kms:Decrypt']
          : access === 'seal'
            ? ['kms:GenerateDataKey']
            : access === 'seal-and-open'
              ? ['kms:GenerateDataKey', 'kms:Decrypt']
              : [];
      expect(credentials.flatMap((s) => s.actions).sort(), fn.routeId).toEqual(expected.sort());
      expect(fn.properties.Environment?.Variables?.[ENV.credentialsKeyArn] !== undefined, fn.routeId).toBe(
        access !== undefined,
      );
    }
    // The import worker opens staged credentials and seals the TOTP secrets it imports; the DLQ
    // consumer and the reconciler never see them.
    expect(workerById.get('import-worker')!.access.credentials).toBe('seal-and-open');
    expect(workerById.get('dlq-consumer')!.access.credentials).toBeUndefined();
    expect(workerById.get('reconciler')!.access.credentials).toBeUndefined();
  });

  it('grants nothing else (no secrets, no wildcards beyond X-Ray)', () => {
    for (const fn of functions) {
      const services = new Set(fn.actions.map((a) => a.split(':')[0]));
      expect(
        [...services].filter((s) => !['dynamodb', 'kms', 'sqs', 'xray'].includes(s as string)),
        fn.routeId,
      ).toEqual([]);
      for (const statement of fn.statements.filter((s) => s.resources.includes('*'))) {
        expect(
          statement.actions.every((a) => a.startsWith('xray:')),
          fn.routeId,
        ).toBe(true);
      }
    }
  });
});

describe('derived from the manifest, not hand-listed', () => {
  it('follows a different manifest: new entries, sources and sizes', () => {
    const base = WORKERS.find((w) => w.source.kind === 'import-queue')!;
    const dlq = WORKERS.find((w) => w.source.kind === 'import-dlq')!;
    const workers: WorkerDefinition[] = [
      { ...base, handler: PLACEHOLDER_HANDLER, source: { kind: 'import-queue', batchSize: 3, maxConcurrency: 7 } },
      { ...dlq, handler: PLACEHOLDER_HANDLER, source: { kind: 'import-dlq', batchSize: 1, maxConcurrency: 2 } },
      {
        id: 'hourly-sweeper',
        handler: PLACEHOLDER_HANDLER,
        source: { kind: 'schedule', everyMinutes: 60 },
        access: { table: 'read' },
        timeoutSeconds: 45,
        memoryMb: 256,
      },
      {
        id: 'minutely-requeuer',
        handler: PLACEHOLDER_HANDLER,
        source: { kind: 'schedule', everyMinutes: 1 },
        access: { table: 'write', queue: 'send' },
        timeoutSeconds: 50,
        memoryMb: 512,
      },
    ];
    const { workersTemplate } = synth({ workers });
    const fns = routeFunctions([workersTemplate]);
    expect(sorted(fns.map((f) => f.routeId))).toEqual(sorted(workers.map((w) => w.id)));
    const mappings = resourcesOfType(workersTemplate, 'AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
    expect(mappings.map((m) => [m?.BatchSize, m?.ScalingConfig?.MaximumConcurrency]).sort()).toEqual([
      [1, 2],
      [3, 7],
    ]);
    expect(
      resourcesOfType(workersTemplate, 'AWS::Events::Rule')
        .map(([, r]) => r.Properties?.ScheduleExpression)
        .sort(),
    ).toEqual(['rate(1 hour)', 'rate(1 minute)']);
    const sweeper = fns.find((f) => f.routeId === 'hourly-sweeper')!;
    expect(sweeper.properties).toMatchObject({ Timeout: 45, MemorySize: 256 });
    expect(sweeper.actions.filter((a) => a.startsWith('sqs:') || WRITE_ACTIONS.includes(a))).toEqual([]);
    expect(fns.find((f) => f.routeId === 'minutely-requeuer')!.actions).toContain('sqs:SendMessage');
  });
});

describe('stack layout', () => {
  it('keeps the workers out of the stateful data stack', () => {
    expect(resourcesOfType(synthesized.dataTemplate, 'AWS::Lambda::Function')).toEqual([]);
    expect(resourcesOfType(synthesized.dataTemplate, 'AWS::Lambda::EventSourceMapping')).toEqual([]);
  });

  it('stays under the resource limit', () => {
    expect(resourceCount(synthesized.workersTemplate)).toBeLessThan(MAX_RESOURCES_PER_STACK);
  });
});

describe('the API-keys secret', () => {
  it('is never given to a worker: no extension layer, no secret grant, no ARN, even when the stage has one', () => {
    const withSecret = routeFunctions([
      synth({ apiKeysSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:auth-core-api-keys-AbC123' })
        .workersTemplate,
    ]);
    expect(withSecret).toHaveLength(WORKERS.length);
    for (const fn of withSecret) {
      expect(fn.properties.Layers, fn.routeId).toBeUndefined();
      const variables = Object.keys(fn.properties.Environment?.Variables ?? {});
      expect(variables, fn.routeId).not.toContain(ENV.apiKeysSecretArn);
      expect(
        variables.filter((name) => name.startsWith('PARAMETERS_SECRETS_')),
        fn.routeId,
      ).toEqual([]);
      expect(
        fn.actions.filter((action) => action.startsWith('secretsmanager:')),
        fn.routeId,
      ).toEqual([]);
    }
  });
});
