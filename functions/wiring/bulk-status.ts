/**
 * Wiring of the bulk-import status API (list, count, remove): only the app's staged-users store.
 * Apart from the staging and worker wiring (bulk-import.ts), so these routes' bundles do not carry
 * the import function and its password hashing.
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import { stagingStoreOf } from './stores.js';
import { appTable } from './tables.js';

/** The status API (list, count, remove) for the request's app. */
export const statusDeps = (config: EffectiveConfig): { store: StagingStore } => ({
  store: stagingStoreOf(appTable(config)),
});
