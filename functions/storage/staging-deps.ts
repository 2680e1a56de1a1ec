/**
 * Wiring of the bulk-import use cases for the handlers and workers (module scope: reused across
 * invocations): the staging store, the import queue's publisher and the app context the worker
 * re-validates against.
 */
import { randomUUID } from 'node:crypto';
import { getBaseConfig, resolveEffectiveConfig } from '#functions/config/index.js';
import { type ImportPublisher, importMessageSchema } from '#functions/domain/bulk-import/message.js';
import type { AppImportContext, ProcessingDeps } from '#functions/domain/bulk-import/processing.js';
import type { ImportBacklog } from '#functions/domain/bulk-import/reconcile.js';
import { importUser, importUserGroup } from '#functions/domain/import/import-user.js';
import { getSqsClient } from '#functions/shared/clients.js';
import { ENV, requireEnv } from '#functions/shared/env.js';
import { logger } from '#functions/shared/logger.js';
import { createSqsPublisher } from '#functions/shared/publisher.js';
import { createQueueBacklog } from '#functions/shared/queue-backlog.js';
import { importValidationContext } from './import-context.js';
import { stagingStore } from './staging-store.js';
import { loadTenantPair } from './tenant-store.js';
import { userStore } from './user-store.js';

export { stagingStore };

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

/** The app's current roles, tenants, switches and import config; undefined when the app is gone. */
export async function loadAppImportContext(appId: string): Promise<AppImportContext | undefined> {
  const [base, pair] = await Promise.all([getBaseConfig(), loadTenantPair(appId, 'public')]);
  if (!pair.app) return undefined;
  const config = resolveEffectiveConfig(base, pair.app.coreConfig, undefined);
  return { validation: await importValidationContext(appId, config), config };
}

/**
 * Dependencies of one worker invocation. The app context is read once per app per batch: the
 * state at the start of the batch is "current" (the import transaction re-checks roles anyway).
 */
export function processingDeps(overrides: Partial<ProcessingDeps> = {}): ProcessingDeps {
  const apps = new Map<string, Promise<AppImportContext | undefined>>();
  return {
    store: stagingStore,
    loadApp: (appId) => {
      let loaded = apps.get(appId);
      if (!loaded) {
        loaded = loadAppImportContext(appId);
        loaded.catch(() => apps.delete(appId));
        apps.set(appId, loaded);
      }
      return loaded;
    },
    importUser: (request) => importUser({ store: userStore }, request),
    importUserGroup: (request) => importUserGroup({ store: userStore }, request),
    now: Date.now,
    newId: randomUUID,
    warn: (message, fields) => logger.warn(message, fields),
    ...overrides,
  };
}
