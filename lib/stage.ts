/**
 * One deployment ("stage") of the core: its settings, read and checked from CDK context, and the
 * three stacks built from them. bin/app.ts and the infra tests both build stages through here, so
 * the tests check the app that deploys.
 */
import { Annotations, type App, Validations } from 'aws-cdk-lib';
import type { WarmThroughput } from 'aws-cdk-lib/aws-dynamodb';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ROUTES, type RouteDefinition } from '#functions/routes.js';
import { METRICS_ENV, METRICS_NAMESPACE, serviceName } from '#functions/shared/metric-names.js';
import { WORKERS, type WorkerDefinition } from '#functions/workers.js';
import { ApiStack, type ApiThrottle } from './api-stack.js';
import {
  importConcurrencyFor,
  MAX_EVENT_SOURCE_CONCURRENCY,
  MIN_EVENT_SOURCE_CONCURRENCY,
  NEW_TABLE_READ_UNITS,
  NEW_TABLE_WRITE_UNITS,
} from './capacity.js';
import { DataStack } from './data-stack.js';
import { appTableNames, appTablePrefixOf } from './tables.js';
import { WorkersStack } from './workers-stack.js';

/**
 * API stage throttling by default: 500 requests/s steady, bursts of 1,000. Enough for sign-ins of
 * a large user base (a bcrypt sign-in is ~100 ms of one function, measurement 4 in docs/performance.md: 500/s keeps ~50
 * running), far below the account's API Gateway quota (10,000/s), so one runaway client cannot take the
 * account's Lambda concurrency or the table's capacity. Staging requests count as one request
 * each (10,000 users).
 */
export const DEFAULT_API_THROTTLE: ApiThrottle = { rateLimit: 500, burstLimit: 1_000 };

export interface StageConfig {
  /** Stack name prefix: `AuthCore-<stage>-…`; also names the metrics' service (`auth-core-<stage>`). */
  readonly stage: string;
  /** Keep data resources (and protect the table) when the stack goes. */
  readonly retain: boolean;
  readonly apiKeysSecretArn?: string;
  /**
   * Deploy without any API key (`-c openApi=true`): every request is served. Only for a core no
   * one but the operator's own servers can reach (a private network); synth warns. When neither
   * this nor `apiKeysSecretArn` is given, the stage generates its API key (DataStack).
   */
  readonly openApi: boolean;
  readonly logRetention: RetentionDays;
  readonly logLevel?: string;
  readonly warmThroughput?: WarmThroughput;
  /**
   * The import worker's event-source maximum concurrency: the ceiling its pace works under.
   * @default - with warm write throughput, what that takes (lib/capacity.ts) if more than the
   * worker manifest's; otherwise the manifest's (what a new table grows to in an hour)
   */
  readonly importMaxConcurrency?: number;
  /**
   * The most table write units per second an import may use of a table (its pace never goes
   * above; functions/shared/import-pace.ts): room kept for live traffic on a shared table.
   * @default none: the pace takes what the table gives
   */
  readonly importMaxWriteUnits?: number;
  readonly apiThrottle: ApiThrottle;
  readonly alarmEmail?: string;
  /** Full names of the app tables to create (lib/tables.ts); each starts with the stage's prefix. */
  readonly appTables: readonly string[];
}

/** A context value that cannot be used; the message names it and says what it must be. */
export class ContextError extends Error {
  override readonly name = 'ContextError';
}

type ContextReader = (name: string) => unknown;

function text(read: ContextReader, name: string): string | undefined {
  const value = read(name);
  if (value === undefined || value === null) return undefined;
  const trimmed = String(value).trim();
  return trimmed === '' ? undefined : trimmed;
}

function integer(read: ContextReader, name: string, min: number, max: number): number | undefined {
  const raw = text(read, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ContextError(`context ${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** Loose check of an e-mail address: one @, no spaces, a dot in the domain. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The stage's settings from CDK context (`-c name=value`):
 *
 *   stage                 stack name prefix (default `dev`)
 *   retain                false = throw-away stage (data destroyed with the stack; default true)
 *   apiKeysSecretArn      complete ARN of a Secrets Manager secret with the comma-separated API keys
 *                         (default: the stage generates a secret with one random key)
 *   openApi               true = no API key at all, for a private network only (default false)
 *   logRetentionDays      function and access log retention (default 30)
 *   logLevel              LOG_LEVEL of every function (debug, info, warn, error)
 *   warmWriteUnits        warm write throughput of the table and its indexes, units/s (≥ 4,000)
 *   warmReadUnits         warm read throughput of the table and its indexes, units/s (≥ 12,000)
 *   importMaxConcurrency  import worker invocations at once at most, the ceiling its pace works
 *                         under (2–1,000; default: what the table's write throughput takes — a
 *                         new table an hour into an import, or the warm throughput; lib/capacity.ts)
 *   importMaxWriteUnits   table write units per second an import may use at most (≥ 100; default:
 *                         none, the pace takes what the table gives)
 *   apiRateLimit          API requests per second, steady (default 500)
 *   apiBurstLimit         API requests above the rate at once (default 1,000)
 *   alarmEmail            e-mail address subscribed to the alarm topic
 *   appTables             comma-separated names of app tables to create, each as
 *                         `auth-core.<stage>.<name>` (lib/tables.ts)
 */
export function stageConfigFromContext(read: ContextReader): StageConfig {
  const stage = text(read, 'stage') ?? 'dev';
  if (!/^[A-Za-z][A-Za-z0-9-]{0,31}$/.test(stage)) {
    throw new ContextError(
      `context stage must be a letter followed by up to 31 letters, digits or dashes, got "${stage}"`,
    );
  }
  const retainValue = text(read, 'retain') ?? 'true';
  if (retainValue !== 'true' && retainValue !== 'false') {
    throw new ContextError(`context retain must be true or false, got "${retainValue}"`);
  }
  const apiKeysSecretArn = text(read, 'apiKeysSecretArn');
  // A complete ARN ends with the 6-character suffix Secrets Manager appends to the name; the grant
  // (and GetSecretValue by ARN) needs it.
  if (
    apiKeysSecretArn !== undefined &&
    !/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+-[A-Za-z0-9]{6}$/.test(apiKeysSecretArn)
  ) {
    throw new ContextError(
      'context apiKeysSecretArn must be the complete ARN of a Secrets Manager secret (…:secret:<name>-<6 chars>)',
    );
  }
  const openApiValue = text(read, 'openApi') ?? 'false';
  if (openApiValue !== 'true' && openApiValue !== 'false') {
    throw new ContextError(`context openApi must be true or false, got "${openApiValue}"`);
  }
  const openApi = openApiValue === 'true';
  if (openApi && apiKeysSecretArn !== undefined) {
    throw new ContextError(
      'context openApi=true and apiKeysSecretArn exclude each other: an open API has no keys (drop one of them)',
    );
  }
  const logRetentionDays = Number(text(read, 'logRetentionDays') ?? '30');
  if (!Object.values(RetentionDays).includes(logRetentionDays)) {
    throw new ContextError(
      `context logRetentionDays must be a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, …), got "${text(read, 'logRetentionDays')}"`,
    );
  }
  const logLevel = text(read, 'logLevel');
  if (logLevel !== undefined && !['debug', 'info', 'warn', 'error'].includes(logLevel)) {
    throw new ContextError(`context logLevel must be debug, info, warn or error, got "${logLevel}"`);
  }
  // Warm throughput can only be raised above what a new on-demand table already has.
  const warmWriteUnits = integer(read, 'warmWriteUnits', NEW_TABLE_WRITE_UNITS, 10_000_000);
  const warmReadUnits = integer(read, 'warmReadUnits', NEW_TABLE_READ_UNITS, 10_000_000);
  const warmThroughput: WarmThroughput | undefined =
    warmWriteUnits === undefined && warmReadUnits === undefined
      ? undefined
      : {
          ...(warmWriteUnits === undefined ? {} : { writeUnitsPerSecond: warmWriteUnits }),
          ...(warmReadUnits === undefined ? {} : { readUnitsPerSecond: warmReadUnits }),
        };
  const importWorker = WORKERS.find((w) => w.source.kind === 'import-queue');
  const batchSize = importWorker?.source.kind === 'import-queue' ? importWorker.source.batchSize : 10;
  const defaultConcurrency = importWorker?.source.kind === 'import-queue' ? importWorker.source.maxConcurrency : 2;
  const importMaxConcurrency =
    integer(read, 'importMaxConcurrency', MIN_EVENT_SOURCE_CONCURRENCY, MAX_EVENT_SOURCE_CONCURRENCY) ??
    (warmWriteUnits === undefined || importConcurrencyFor(warmWriteUnits, batchSize) <= defaultConcurrency
      ? undefined
      : importConcurrencyFor(warmWriteUnits, batchSize));
  const importMaxWriteUnits = integer(read, 'importMaxWriteUnits', 100, 10_000_000);
  const rateLimit = integer(read, 'apiRateLimit', 1, 1_000_000) ?? DEFAULT_API_THROTTLE.rateLimit;
  const burstLimit = integer(read, 'apiBurstLimit', 0, 5_000_000) ?? DEFAULT_API_THROTTLE.burstLimit;
  const alarmEmail = text(read, 'alarmEmail');
  if (alarmEmail !== undefined && !EMAIL.test(alarmEmail)) {
    throw new ContextError(`context alarmEmail must be an e-mail address, got "${alarmEmail}"`);
  }
  const appTables = appTableNames(appTablePrefixOf(stage), text(read, 'appTables'));
  if ('problem' in appTables) throw new ContextError(appTables.problem);
  return {
    stage,
    retain: retainValue === 'true',
    openApi,
    appTables: appTables.names,
    logRetention: logRetentionDays as RetentionDays,
    apiThrottle: { rateLimit, burstLimit },
    ...(apiKeysSecretArn === undefined ? {} : { apiKeysSecretArn }),
    ...(logLevel === undefined ? {} : { logLevel }),
    ...(warmThroughput === undefined ? {} : { warmThroughput }),
    ...(alarmEmail === undefined ? {} : { alarmEmail }),
    ...(importMaxConcurrency === undefined ? {} : { importMaxConcurrency }),
    ...(importMaxWriteUnits === undefined ? {} : { importMaxWriteUnits }),
  };
}

/** What the tests may swap: the manifests (e.g. more routes than exist, placeholder handlers). */
export interface StageOverrides {
  readonly routes?: readonly RouteDefinition[];
  readonly workers?: readonly WorkerDefinition[];
}

export interface Stage {
  readonly data: DataStack;
  readonly api: ApiStack;
  readonly workers: WorkersStack;
}

/**
 * The stage's stacks: `AuthCore-<stage>-Data` (stateful), `-Api` (HTTP API, route functions) and
 * `-Workers` (import pipeline functions, migration dashboard), the last two stateless and built
 * from the route and worker manifests. Env-agnostic: synth needs no credentials and does no
 * lookups; `cdk deploy` uses the account and region of the deploying credentials.
 */
export function addStage(app: App, config: StageConfig, overrides: StageOverrides = {}): Stage {
  const { stage, retain, logRetention } = config;
  const prefix = `AuthCore-${stage}`;
  const service = serviceName(stage);
  const commonEnvironment = { [METRICS_ENV.namespace]: METRICS_NAMESPACE, [METRICS_ENV.service]: service };
  const logLevel = config.logLevel === undefined ? {} : { logLevel: config.logLevel };

  const appTablePrefix = appTablePrefixOf(stage);
  const data = new DataStack(app, `${prefix}-Data`, {
    description: `Auth core ${stage}: key, table, import queues, alarm topic (stateful)`,
    retain,
    appTablePrefix,
    appTables: config.appTables,
    terminationProtection: retain,
    ...(config.warmThroughput === undefined ? {} : { warmThroughput: config.warmThroughput }),
    ...(config.alarmEmail === undefined ? {} : { alarmEmail: config.alarmEmail }),
    generateApiKey: config.apiKeysSecretArn === undefined && !config.openApi,
  });
  // The operator's secret, the generated one, or none (openApi).
  const apiKeysSecretArn = config.apiKeysSecretArn ?? data.apiKeysSecret?.secretArn;
  const api = new ApiStack(app, `${prefix}-Api`, {
    description: `Auth core ${stage}: HTTP API and route functions (stateless)`,
    routes: overrides.routes ?? ROUTES,
    table: data.table,
    appTablePrefix,
    importQueue: data.importQueue.queue,
    credentialsKey: data.credentialsKey,
    retain,
    logRetention,
    throttle: config.apiThrottle,
    alarmTopic: data.alarmTopic,
    commonEnvironment,
    ...(apiKeysSecretArn === undefined ? {} : { apiKeysSecretArn }),
    ...logLevel,
  });
  const workers = new WorkersStack(app, `${prefix}-Workers`, {
    description: `Auth core ${stage}: import worker, DLQ consumer, reconciler, migration dashboard (stateless)`,
    workers: overrides.workers ?? WORKERS,
    table: data.table,
    credentialsKey: data.credentialsKey,
    appTablePrefix,
    importQueue: data.importQueue,
    retain,
    logRetention,
    alarmTopic: data.alarmTopic,
    commonEnvironment,
    ...(config.importMaxConcurrency === undefined ? {} : { importMaxConcurrency: config.importMaxConcurrency }),
    ...(config.importMaxWriteUnits === undefined ? {} : { importMaxWriteUnits: config.importMaxWriteUnits }),
    metricsService: service,
    tableWriteUnits: config.warmThroughput?.writeUnitsPerSecond ?? NEW_TABLE_WRITE_UNITS,
    ...logLevel,
  });

  // cdk-nag's AWS Solutions rules run on every synth (`cdk synth`, the infra tests); a finding
  // stops synthesis unless acknowledged next to the construct with its reason.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

  if (config.openApi) {
    Annotations.of(api).addWarningV2(
      'auth-core:open-api',
      'openApi=true: the deployed core accepts every request without an API key — anyone who can reach its URL ' +
        "can create and delete apps and import users. The HTTP API's URL is public: use this only where other " +
        'means keep everyone but your own servers from reaching it.',
    );
  }
  if (config.alarmEmail === undefined) {
    Annotations.of(data).addWarningV2(
      'auth-core:no-alarm-email',
      'No alarmEmail given: alarms notify the alarm topic, which nobody is subscribed to yet.',
    );
  }
  return { data, api, workers };
}
