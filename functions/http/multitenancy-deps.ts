import { getBaseConfig } from '#functions/config/index.js';
import type { Caller, Deps } from '#functions/domain/multitenancy/service.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import type { CoreRequest } from '#functions/shared/http.js';
import { tenantStore } from '#functions/storage/tenant-store.js';

/** Wiring shared by the multitenancy route handlers. */
export const multitenancyDeps: Deps = { store: tenantStore, now: Date.now, baseConfig: getBaseConfig };

export function callerOf(request: CoreRequest): Caller {
  return {
    appId: request.appId,
    tenantId: request.tenantId,
    tenant: request.tenant,
    cdiAtLeast5: cdiAtLeast(request.cdiVersion, '5.0'),
  };
}

export function bodyOf(request: CoreRequest): Readonly<Record<string, unknown>> {
  return request.body ?? {};
}
