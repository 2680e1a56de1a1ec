/**
 * What the bulk-import workers share about apps known only by id (their messages name an app and
 * a staged row): each app's configuration, read at most once per invocation, the staged rows in
 * the table it names, and the backpressure policy the import worker and the DLQ consumer apply.
 */
import { type EffectiveConfig, getBaseConfig } from '#functions/config/index.js';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { type BackpressurePolicy, IMPORT_BACKPRESSURE } from '#functions/domain/bulk-import/backoff.js';
import type { StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import { ENV } from '#functions/shared/env.js';
import { classifyError, isTransient } from '#functions/storage/kit/index.js';
import { effectiveConfig } from './app-config.js';
import { stagingStoreOf, tenantStore } from './stores.js';
import { appTable } from './tables.js';

/** `load` of an app at most once per invocation (a failed load is tried again next time). */
export function perApp<T>(load: (appId: string) => Promise<T>): (appId: string) => Promise<T> {
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

/** The app's effective configuration (its public tenant over the base); undefined when the app is gone. */
export async function loadAppConfig(appId: string): Promise<EffectiveConfig | undefined> {
  const [base, app] = await Promise.all([getBaseConfig(), tenantStore.getTenant(appId, PUBLIC_TENANT_ID)]);
  return app ? effectiveConfig(base, appId, app) : undefined;
}

/** An app's effective configuration, read at most once per invocation. */
export const configCache = () => perApp(loadAppConfig);

/** What the import worker needs to know about an app for one invocation. */
export interface AppSnapshot {
  /** Its effective configuration (its public tenant over the base). */
  readonly config: EffectiveConfig;
  /** Its tenants' ids, the public one among them (import validation checks users' tenants). */
  readonly tenantIds: ReadonlySet<string>;
}

/**
 * The app's configuration and its tenants from ONE consistent Query of its tenants (the public
 * tenant is one of them: no second read of it); undefined when the app is gone.
 */
async function loadAppSnapshot(appId: string): Promise<AppSnapshot | undefined> {
  const [base, tenants] = await Promise.all([getBaseConfig(), tenantStore.listTenants(appId)]);
  const app = tenants.find((t) => t.tenantId === PUBLIC_TENANT_ID);
  if (!app) return undefined;
  return {
    config: effectiveConfig(base, appId, app),
    tenantIds: new Set(tenants.map((t) => t.tenantId)),
  };
}

/**
 * Each app's {@link AppSnapshot}, read at most once per invocation (tenants may change between
 * invocations: never kept longer), with its configuration for {@link appRoutedStagingStore}.
 */
export function snapshotCache() {
  const snapshotOf = perApp(loadAppSnapshot);
  return { snapshotOf, configOf: async (appId: string) => (await snapshotOf(appId))?.config };
}

/**
 * The staged rows of apps known only by id (the import worker's and the DLQ consumer's messages): each
 * app's table comes from its configuration, resolved before any of its rows is touched. When the
 * app is gone (its deletion purged its rows) every row reads as absent.
 */
export function appRoutedStagingStore(configOf: (appId: string) => Promise<EffectiveConfig | undefined>): StagingStore {
  const storeOf = async (appId: string) => {
    const config = await configOf(appId);
    return config ? stagingStoreOf(appTable(config)) : undefined;
  };
  return {
    insertNewOnce: async (appId, users, now, once, pace) => {
      const store = await storeOf(appId);
      if (!store) throw new Error('the app of these staged users no longer exists');
      return store.insertNewOnce(appId, users, now, once, pace);
    },
    get: async (appId, id) => (await storeOf(appId))?.get(appId, id),
    claim: async (appId, id, now) => (await storeOf(appId))?.claim(appId, id, now),
    claimMany: async (appId, ids, now) =>
      (await (await storeOf(appId))?.claimMany(appId, ids, now)) ?? new Map(ids.map((id) => [id, undefined])),
    fail: async (row, message, now) => (await (await storeOf(row.appId))?.fail(row, message, now)) ?? false,
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

/**
 * Backpressure as the kit classifies it: throttling and capacity errors of DynamoDB, SQS and KMS,
 * conflicting transactions, 5xx and network errors — and the kit's own `TransientStorageError`.
 */
export const isBackpressure = (error: unknown): boolean => isTransient(classifyError(error));

/**
 * The import's backoff: IMPORT_BACKPRESSURE (functions/domain/bulk-import/backoff.ts), or — for the local runtime and
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
