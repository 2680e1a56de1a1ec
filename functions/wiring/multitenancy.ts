/** Wiring of the multitenancy use cases (apps and tenants). */
import { type ConfigValues, getBaseConfig } from '#functions/config/index.js';
import type { Deps } from '#functions/domain/multitenancy/deps.js';
import { purgeAppData, purgeTenantData } from '#functions/storage/app-purge.js';
import { appConfigOf } from './app-config.js';
import { outboundTargetProblem } from './outbound-http.js';
import { tenantStore } from './stores.js';
import { appTable, appTables, baseTable } from './tables.js';

/** The table of an app known by its own overrides (its public tenant's coreConfig, already loaded). */
const appTableOf = async (appId: string, coreConfig: ConfigValues) =>
  appTable(await appConfigOf(appId, { coreConfig }));

export const multitenancyDeps: Deps = {
  store: tenantStore,
  purger: {
    purgeAppData: async (appId, appOverrides) => purgeAppData(await appTableOf(appId, appOverrides), baseTable, appId),
    purgeTenantData: async (appId, tenantId, appOverrides) =>
      purgeTenantData(await appTableOf(appId, appOverrides), appId, tenantId),
  },
  tables: appTables,
  now: Date.now,
  baseConfig: getBaseConfig,
  outboundTargetProblem,
};
