/**
 * Wiring of the import worker: THE import function on the staged rows of the apps its messages
 * name, and the return of messages that met backpressure to the import queue.
 */
import { randomUUID } from 'node:crypto';
import type { AppImportContext, ImportBatchDeps } from '#functions/domain/bulk-import/import-batch.js';
import { importUser, importUserGroup } from '#functions/domain/import/import-user.js';
import { getSqsClient } from '#functions/shared/clients.js';
import { ENV, requireEnv } from '#functions/shared/env.js';
import { logger } from '#functions/shared/logger.js';
import { delayVisibility } from '#functions/shared/visibility.js';
import { timeLeftMs } from '#functions/storage/kit/index.js';
import { importValidationContext } from './import.js';
import { importPublisher } from './import-queue.js';
import {
  type AppSnapshot,
  appRoutedStagingStore,
  backpressurePolicy,
  configCache,
  isBackpressure,
  perApp,
  snapshotCache,
} from './staged-apps.js';
import { userStoreOf } from './stores.js';
import { appTable } from './tables.js';

const warn = (message: string, fields: Record<string, unknown>) => logger.warn(message, fields);

async function importContextOf(appId: string, app: AppSnapshot): Promise<AppImportContext> {
  const { now: _now, newId: _newId, ...validation } = await importValidationContext(appId, app.config, app.tenantIds);
  return { validation, config: app.config };
}

/**
 * Dependencies of one worker invocation. The app is read once per app per batch: the state at the
 * start of the batch is "current" (the import transaction re-checks roles anyway). One Query of
 * its tenants gives both its configuration (its public tenant: which table holds its staged rows
 * and its users) and the tenants re-validation checks; `apps` is the invocation's, shared with
 * {@link returnDeps} (through its `configOf`) so returning messages reads no app again.
 */
export function importBatchDeps(
  overrides: Partial<ImportBatchDeps> = {},
  apps: ReturnType<typeof snapshotCache> = snapshotCache(),
): ImportBatchDeps {
  const { snapshotOf, configOf } = apps;
  const contextOf = perApp(async (appId): Promise<AppImportContext | undefined> => {
    const app = await snapshotOf(appId);
    return app ? importContextOf(appId, app) : undefined;
  });
  const importDepsOf = async (appId: string) => {
    const config = await configOf(appId);
    if (!config) throw new Error('the app of this import no longer exists');
    return { store: userStoreOf(appTable(config)) };
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

/**
 * What the import worker needs to return messages that met backpressure (functions/workers/backpressure.ts):
 * the staged rows, the policy, delayed sends to the import queue and visibility changes on it.
 */
export const returnDeps = (configOf: ReturnType<typeof configCache> = configCache()) => ({
  store: appRoutedStagingStore(configOf),
  now: Date.now,
  policy: backpressurePolicy(),
  publisher: importPublisher,
  delayVisibility: (entries: readonly { receiptHandle: string; seconds: number }[]) =>
    delayVisibility(getSqsClient(), requireEnv(ENV.importQueueUrl), entries),
});
