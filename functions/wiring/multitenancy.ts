/** Wiring of the multitenancy use cases (apps and tenants). */
import { getBaseConfig } from '#functions/config/index.js';
import type { Deps } from '#functions/domain/multitenancy/service.js';
import { createAppDataPurger } from '#functions/storage/app-purge.js';
import { tenantStore } from './stores.js';
import { appTableById } from './tables.js';

export const multitenancyDeps: Deps = {
  store: tenantStore,
  purger: createAppDataPurger(appTableById),
  now: Date.now,
  baseConfig: getBaseConfig,
};
