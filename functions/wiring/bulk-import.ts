/**
 * Wiring of the bulk-import pipeline: staging (`POST /bulk-import/users`), the status API, the
 * import worker, the DLQ consumer and the reconciler. Queue clients are created once per process.
 */
import { randomUUID } from 'node:crypto';
import { type EffectiveConfig, getBaseConfig, resolveEffectiveConfig } from '#functions/config/index.js';
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
import { IMPORT_BACKPRESSURE } from '#functions/workers.js';
import { importValidationContext } from './import.js';
import { appStores, storesOf, tenantStore } from './stores.js';
import { baseTable } from './tables.js';

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

/**
 * The staged rows of messages that carry only an app id (worker, DLQ consumer, reconciler). The
 * table is the base table today; an app with a table of its own will be resolved from its config.
 */
export const workerStagingStore = (): StagingStore => storesOf(baseTable).staging;

/** `POST /bulk-import/users` for the request's app. */
export function stagingDeps(config: EffectiveConfig, publisher: ImportPublisher = importPublisher): StagingDeps {
  return { store: appStores(config).staging, publisher, now: Date.now, newId: randomUUID, warn, metrics: emfMetrics };
}

export { statusDeps } from './bulk-status.js';

/** The app's effective configuration (its public tenant over the base); undefined when the app is gone. */
export async function loadAppConfig(appId: string): Promise<EffectiveConfig | undefined> {
  const [base, app] = await Promise.all([getBaseConfig(), tenantStore.getTenant(appId, 'public')]);
  return app ? resolveEffectiveConfig(base, app.coreConfig, undefined) : undefined;
}

async function importContextOf(appId: string, config: EffectiveConfig): Promise<AppImportContext> {
  const { now: _now, newId: _newId, ...validation } = await importValidationContext(appId, config);
  return { validation, config };
}

/**
 * Dependencies of one worker invocation. The app is read once per app per batch: the state at the
 * start of the batch is "current" (the import transaction re-checks roles anyway). The app's
 * configuration also says which table holds its users.
 */
export function processingDeps(overrides: Partial<ProcessingDeps> = {}): ProcessingDeps {
  const configs = new Map<string, Promise<EffectiveConfig | undefined>>();
  const contexts = new Map<string, Promise<AppImportContext | undefined>>();
  const cached = <T>(cache: Map<string, Promise<T>>, appId: string, load: () => Promise<T>): Promise<T> => {
    let loaded = cache.get(appId);
    if (!loaded) {
      loaded = load();
      loaded.catch(() => cache.delete(appId));
      cache.set(appId, loaded);
    }
    return loaded;
  };
  const configOf = (appId: string) => cached(configs, appId, () => loadAppConfig(appId));
  const importDepsOf = async (appId: string) => {
    const config = await configOf(appId);
    if (!config) throw new Error('the app of this import no longer exists');
    return { store: appStores(config).users };
  };
  return {
    store: workerStagingStore(),
    loadApp: (appId) =>
      cached(contexts, appId, async () => {
        const config = await configOf(appId);
        return config ? importContextOf(appId, config) : undefined;
      }),
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
export const dlqDeps = () => ({ store: workerStagingStore(), now: Date.now, policy: backpressurePolicy() });

/**
 * What the workers need to return messages that met backpressure (functions/workers/backpressure.ts):
 * the staged rows, the policy, delayed sends to the import queue and visibility changes on it.
 */
export const returnDeps = () => ({
  store: workerStagingStore(),
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

/** The reconciler: re-sends rows whose message is gone. */
export const reconcilerDeps = (publisher: ImportPublisher = importPublisher): ReconcileDeps => ({
  store: workerStagingStore(),
  publisher,
  now: Date.now,
});

export { withinBudget } from './budget.js';
