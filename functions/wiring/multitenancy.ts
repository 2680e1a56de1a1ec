/** Wiring of the multitenancy use cases (apps and tenants). */
import { getBaseConfig } from '#functions/config/index.js';
import type { Deps } from '#functions/domain/multitenancy/service.js';
import { purgeAppData, purgeTenantData } from '#functions/storage/app-purge.js';
import { tenantStore } from './stores.js';
import { appTableOfOverrides, appTables, baseTable } from './tables.js';

export const multitenancyDeps: Deps = {
  store: tenantStore,
  purger: {
    purgeAppData: async (appId, appOverrides) =>
      purgeAppData(await appTableOfOverrides(appOverrides), baseTable, appId),
    purgeTenantData: async (appId, tenantId, appOverrides) =>
      purgeTenantData(await appTableOfOverrides(appOverrides), appId, tenantId),
  },
  tables: appTables,
  now: Date.now,
  baseConfig: getBaseConfig,
};
