import type { Caller } from '#functions/domain/multitenancy/deps.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import type { CoreRequest } from './pipeline.js';

/** Who calls a multitenancy API: the path's app and tenant, and whether the request speaks CDI ≥ 5.0. */
export function callerOf(request: CoreRequest): Caller {
  return {
    appId: request.appId,
    tenantId: request.tenantId,
    tenant: request.tenant,
    cdiAtLeast5: cdiAtLeast(request.cdiVersion, '5.0'),
  };
}
