/**
 * Wiring of the bulk-import pipeline: staging (`POST /bulk-import/users`), the status API, the
 * import worker, the DLQ consumer and the reconciler. Queue clients are created once per process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type EffectiveConfig, getBaseConfig, resolveEffectiveConfig } from '#functions/config/index.js';
import type { DryRunDeps } from '#functions/domain/bulk-import/dry-run.js';
import type { KeyedStagingDeps } from '#functions/domain/bulk-import/idempotency.js';
import {
  type ImportMessage,
  type ImportPublisher,
  importMessageSchema,
} from '#functions/domain/bulk-import/message.js';
import type { AppImportContext, BackpressurePolicy, ProcessingDeps } from '#functions/domain/bulk-import/processing.js';
import type { ImportBacklog, ReconcileDeps } from '#functions/domain/bulk-import/reconcile.js';
import type { StagingDeps } from '#functions/domain/bulk-import/staging.js';
import type { StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import { importUser, importUserGroup } from '#functions/domain/import/import-user.js';
import { getSqsClient } from '#functions/shared/clients.js';
import { ENV, requireEnv } from '#functions/shared/env.js';
import { logger } from '#functions/shared/logger.js';
import { emfMetrics } from '#functions/shared/metrics.js';
import { createSqsPublisher, type Publisher } from '#functions/shared/publisher.js';
import { createQueueBacklog } from '#functions/shared/queue-backlog.js';
import { delayVisibility } from '#functions/shared/visibility.js';
import { classifyError, isTransient, timeLeftMs } from '#functions/storage/kit/index.js';
import { createStagingMarkers } from '#functions/storage/staging/reconcile-scan.js';
import { IMPORT_BACKPRESSURE } from '#functions/workers.js';
import { importValidationContext } from './import.js';
import { appStores, storesOf, tenantStore } from './stores.js';
import { appTable, baseTable } from './tables.js';

const warn = (message: string, fields: Record<string, unknown>) => logger.warn(message, fields);

/** Messages to the import queue; the app id is the SQS fair-queue message group. */
export const importPublisher: Publisher<ImportMessage> = createSqsPublisher({
  schema: importMessageSchema,
  queueUrl: () => requireEnv(ENV.importQueueUrl),
  client: getSqsClient,
  groupId: (m) => m.appId,
});

/** What the import queue and its dead-letter queue hold (the reconciler's view of the backlog). */
export const importBacklog: ImportBacklog = createQueueBacklog({
  client: getSqsClient,
  queueUrls: () => [requireEnv(ENV.importQueueUrl), requireEnv(ENV.importDlqUrl)],
});

/** `load` of an app at most once per invocation (a failed load is tried again next time). */
function perApp<T>(load: (appId: string) => Promise<T>): (appId: string) => Promise<T> {
  const loaded = new Map<string, Promise<T>>();
  return (appId) => {
    let value = loaded.get(appId);
    if (!value) {
      value = load(appId);
      value.catch(() => loaded.delete(appId));
      loaded.set(appId, value);
    }
    return value;
  };
}

/** An app's effective configuration, read at most once per invocation. */
const configCache = () => perApp(loadAppConfig);

/**
 * The staged rows of apps known only by id (the worker's and the DLQ consumer's messages): each
 * app's table comes from its configuration, resolved before any of its rows is touched. When the
 * app is gone (its deletion purged its rows) every row reads as absent.
 */
export function appRoutedStagingStore(configOf: (appId: string) => Promise<EffectiveConfig | undefined>): StagingStore {
  const storeOf = async (appId: string) => {
    const config = await configOf(appId);
    return config ? appStores(config).staging : undefined;
  };
  return {
    insertNew: async (appId, users, now) => {
      const store = await storeOf(appId);
      if (!store) throw new Error('the app of these staged users no longer exists');
      return store.insertNew(appId, users, now);
    },
    insertNewOnce: async (appId, users, now, once) => {
      const store = await storeOf(appId);
      if (!store) throw new Error('the app of these staged users no longer exists');
      return store.insertNewOnce(appId, users, now, once);
    },
    get: async (appId, id) => (await storeOf(appId))?.get(appId, id),
    claim: async (appId, id, now) => (await storeOf(appId))?.claim(appId, id, now),
    claimMany: async (appId, ids, now) =>
      (await (await storeOf(appId))?.claimMany(appId, ids, now)) ?? new Map(ids.map((id) => [id, undefined])),
    fail: async (appId, id, from, message, now) =>
      (await (await storeOf(appId))?.fail(appId, id, from, message, now)) ?? false,
    noteTransientError: async (appId, id, message, now, kind) =>
      (await storeOf(appId))?.noteTransientError(appId, id, message, now, kind),
    removeImported: async (appId, id) => (await (await storeOf(appId))?.removeImported(appId, id)) ?? false,
    remove: async (appId, ids) => (await (await storeOf(appId))?.remove(appId, ids)) ?? new Set(),
    list: async (appId, query) => (await (await storeOf(appId))?.list(appId, query)) ?? { rows: [] },
    count: async (appId, status) => (await (await storeOf(appId))?.count(appId, status)) ?? 0,
    pendingSentBefore: async (appId, sentBefore, visit) =>
      (await storeOf(appId))?.pendingSentBefore(appId, sentBefore, visit),
    markSent: async (appId, id, now) => (await storeOf(appId))?.markSent(appId, id, now),
  };
}

/** `POST /bulk-import/users` for the request's app. */
export function stagingDeps(config: EffectiveConfig, publisher: ImportPublisher = importPublisher): StagingDeps {
  return { store: appStores(config).staging, publisher, now: Date.now, newId: randomUUID, warn, metrics: emfMetrics };
}

/** `POST /bulk-import/users` with an Idempotency-Key: staging plus the app's remembered requests. */
export function keyedStagingDeps(
  config: EffectiveConfig,
  publisher: ImportPublisher = importPublisher,
): KeyedStagingDeps {
  return {
    ...stagingDeps(config, publisher),
    requests: appStores(config).idempotency,
    newGeneration: () => randomBytes(16).toString('hex'),
  };
}

/** `POST /bulk-import/users?dryRun=true`: the app's users, read only. */
export const dryRunDeps = (config: EffectiveConfig): DryRunDeps => ({ users: appStores(config).users });

export { statusDeps } from './bulk-status.js';

/** The app's effective configuration (its public tenant over the base); undefined when the app is gone. */
export async function loadAppConfig(appId: string): Promise<EffectiveConfig | undefined> {
  const [base, app] = await Promise.all([getBaseConfig(), tenantStore.getTenant(appId, 'public')]);
  return app ? resolveEffectiveConfig(base, app.coreConfig, undefined, appId) : undefined;
}

async function importContextOf(appId: string, config: EffectiveConfig): Promise<AppImportContext> {
  const { now: _now, newId: _newId, ...validation } = await importValidationContext(appId, config);
  return { validation, config };
}

/**
 * Dependencies of one worker invocation. The app is read once per app per batch: the state at the
 * start of the batch is "current" (the import transaction re-checks roles anyway). The app's
 * configuration also says which table holds its staged rows and its users.
 */
export function processingDeps(overrides: Partial<ProcessingDeps> = {}): ProcessingDeps {
  const configOf = configCache();
  const contextOf = perApp(async (appId): Promise<AppImportContext | undefined> => {
    const config = await configOf(appId);
    return config ? importContextOf(appId, config) : undefined;
  });
  const importDepsOf = async (appId: string) => {
    const config = await configOf(appId);
    if (!config) throw new Error('the app of this import no longer exists');
    return { store: appStores(config).users };
  };
  return {
    store: appRoutedStagingStore(configOf),
    loadApp: contextOf,
    importUser: async (request) => importUser(await importDepsOf(request.appId), request),
    importUserGroup: async (request) => importUserGroup(await importDepsOf(request.appId), request),
    now: Date.now,
    newId: randomUUID,
    warn,
    isBackpressure,
    timeLeftMs: () => timeLeftMs(),
    ...overrides,
  };
}

/** The DLQ consumer: rows whose messages ran out of retries become FAILED, or go back to the queue. */
export const dlqDeps = () => ({
  store: appRoutedStagingStore(configCache()),
  now: Date.now,
  policy: backpressurePolicy(),
});

/**
 * What the workers need to return messages that met backpressure (functions/workers/backpressure.ts):
 * the staged rows, the policy, delayed sends to the import queue and visibility changes on it.
 */
export const returnDeps = () => ({
  store: appRoutedStagingStore(configCache()),
  now: Date.now,
  policy: backpressurePolicy(),
  publisher: importPublisher,
  delayVisibility: (entries: readonly { receiptHandle: string; seconds: number }[]) =>
    delayVisibility(getSqsClient(), requireEnv(ENV.importQueueUrl), entries),
});

/**
 * Backpressure as the kit classifies it: throttling and capacity errors of DynamoDB, SQS and KMS,
 * conflicting transactions, 5xx and network errors — and the kit's own `TransientStorageError`.
 */
export const isBackpressure = (error: unknown): boolean => isTransient(classifyError(error));

/**
 * The import's backoff: functions/workers.ts IMPORT_BACKPRESSURE, or — for the local runtime and
 * the tests only — `IMPORT_BACKPRESSURE=<first>,<max>,<give up>` seconds.
 */
export function backpressurePolicy(env: NodeJS.ProcessEnv = process.env): BackpressurePolicy {
  const text = env[ENV.importBackpressure];
  if (text === undefined || text.trim() === '') return IMPORT_BACKPRESSURE;
  const parts = text.split(',').map((part) => Number(part.trim()));
  const [firstDelaySeconds, maxDelaySeconds, giveUpAfterSeconds] = parts;
  if (
    parts.length !== 3 ||
    !parts.every((n) => Number.isFinite(n) && n >= 0) ||
    (maxDelaySeconds as number) > 900 ||
    (giveUpAfterSeconds as number) <= 0
  ) {
    throw new Error(`${ENV.importBackpressure} must be '<first>,<max ≤ 900>,<give up> seconds', got '${text}'`);
  }
  return {
    firstDelaySeconds: firstDelaySeconds as number,
    maxDelaySeconds: maxDelaySeconds as number,
    giveUpAfterSeconds: giveUpAfterSeconds as number,
  };
}

/**
 * The reconciler: re-sends rows whose message is gone. The apps come from the staging markers in
 * the base table; each app's rows are read in the table its configuration names.
 */
export function reconcilerDeps(publisher: ImportPublisher = importPublisher): ReconcileDeps {
  const configOf = configCache();
  return {
    markers: createStagingMarkers(baseTable),
    appStore: async (appId) => {
      const config = await configOf(appId);
      if (!config) return undefined;
      const table = appTable(config);
      return { store: storesOf(table).staging, table: table.name };
    },
    publisher,
    now: Date.now,
    warn,
  };
}

export { withinBudget } from './budget.js';
