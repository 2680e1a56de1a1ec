/**
 * What every request loads before its route runs: the app (its public tenant), the path's tenant
 * and their effective configuration.
 */
import { type EffectiveConfig, getBaseConfig } from '#functions/config/index.js';
import type { TenantRecord } from '#functions/domain/multitenancy/tenant.js';
import { effectiveConfig } from './app-config.js';
import { tenantStore } from './stores.js';

export interface RequestTenants {
  readonly app: TenantRecord | undefined;
  readonly tenant: TenantRecord | undefined;
  /** Effective config of the path's tenant (or of the base, when the app does not exist). */
  readonly config: EffectiveConfig;
}

export async function loadRequestTenants(appId: string, tenantId: string): Promise<RequestTenants> {
  const [base, { app, tenant }] = await Promise.all([getBaseConfig(), tenantStore.getTenantPair(appId, tenantId)]);
  return { app, tenant, config: effectiveConfig(base, appId, app, tenant) };
}

/** The app and the tenant only (the fallback route: `/<tenant>/hello`). */
export const loadTenantPair = (appId: string, tenantId: string) => tenantStore.getTenantPair(appId, tenantId);
