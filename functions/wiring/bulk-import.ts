/**
 * Wiring of the bulk-import pipeline: staging (`POST /bulk-import/users`), the status API, the
 * import worker, the DLQ consumer and the reconciler. Queue clients are created once per process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type EffectiveConfig, getBaseConfig, resolveEffectiveConfig } from '#functions/config/index.js';
import type { DryRunDeps } from '#functions/domain/bulk-import/dry-run.js';
import type { KeyedStagingDeps } from '#functions/domain/bulk-import/idempotency.js';
import { type ImportPublisher, importMessageSchema } from '#functions/domain/bulk-import/message.js';
import type { AppImportContext, ProcessingDeps } from '#functions/domain/bulk-import/processing.js';
import type { ImportBacklog, ReconcileDeps } from '#functions/domain/bulk-import/reconcile.js';
import type { StagingDeps } from '#functions/domain/bulk-import/staging.js';
import type { StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import { importUser, importUserGroup } from '#functions/domain/import/import-user.js';
import { getSqsClient } from '#functions/shared/clients.js';
import { ENV, requireEnv } from '#functions/shared/env.js';
import { logger } from '#functions/shared/logger.js';
import { createSqsPublisher } from '#functions/shared/publisher.js';
import { createQueueBacklog } from '#functions/shared/queue-backlog.js';
import { importValidationContext } from './import.js';
import { appStores, storesOf, tenantStore } from './stores.js';
import { baseTable } from './tables.js';

const warn = (message: string, fields: Record<string, unknown>) => logger.warn(message, fields);

/** Messages to the import queue; the app id is the SQS fair-queue message group. */
export const importPublisher: ImportPublisher = createSqsPublisher({
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
  return { store: appStores(config).staging, publisher, now: Date.now, newId: randomUUID, warn };
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

/** The status API (list, count, remove) for the request's app. */
export const statusDeps = (config: EffectiveConfig): { store: StagingStore } => ({ store: appStores(config).staging });

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
    ...overrides,
  };
}

/** The DLQ consumer: rows whose messages ran out of retries become FAILED. */
export const dlqDeps = () => ({ store: workerStagingStore(), now: Date.now });

/** The reconciler: re-sends rows whose message is gone. */
export const reconcilerDeps = (publisher: ImportPublisher = importPublisher): ReconcileDeps => ({
  store: workerStagingStore(),
  publisher,
  now: Date.now,
});
