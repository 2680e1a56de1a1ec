/**
 * Wiring of staging, `POST /bulk-import/users`: the app's staged rows, its remembered requests
 * (Idempotency-Key), its users (dry run) and the import queue. The workers' wiring is apart
 * (import-worker.ts, dead-letters.ts, reconciler.ts), as is the status API's (bulk-status.ts), so
 * each function carries only what it uses.
 */
import { randomBytes } from 'node:crypto';
import type { EffectiveConfig } from '#functions/config/index.js';
import type { DryRunDeps } from '#functions/domain/bulk-import/dry-run.js';
import type { KeyedStagingDeps } from '#functions/domain/bulk-import/idempotency.js';
import type { ImportPublisher } from '#functions/domain/bulk-import/message.js';
import type { StagingDeps } from '#functions/domain/bulk-import/staging.js';
import { logger } from '#functions/shared/logger.js';
import { emfMetrics } from '#functions/shared/metrics.js';
import { importPublisher } from './import-queue.js';
import { idempotencyStoreOf, stagingStoreOf, userStoreOf } from './stores.js';
import { appTable } from './tables.js';

const warn = (message: string, fields: Record<string, unknown>) => logger.warn(message, fields);

/** `POST /bulk-import/users` for the request's app: its staged rows and the import queue. */
function stagingDeps(config: EffectiveConfig, publisher: ImportPublisher): StagingDeps {
  return {
    store: stagingStoreOf(appTable(config)),
    publisher,
    now: Date.now,
    warn,
    metrics: emfMetrics,
  };
}

/**
 * `POST /bulk-import/users`: staging plus the app's remembered requests (every request is staged
 * under a key: its Idempotency-Key, else its body's digest).
 */
export function keyedStagingDeps(
  config: EffectiveConfig,
  publisher: ImportPublisher = importPublisher,
): KeyedStagingDeps {
  return {
    ...stagingDeps(config, publisher),
    requests: idempotencyStoreOf(appTable(config)),
    newGeneration: () => randomBytes(16).toString('hex'),
  };
}

/** `POST /bulk-import/users?dryRun=true`: the app's users, read only. */
export const dryRunDeps = (config: EffectiveConfig): DryRunDeps => ({ users: userStoreOf(appTable(config)) });
