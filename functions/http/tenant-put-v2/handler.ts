import { createOrUpdateTenant } from '#functions/domain/multitenancy/service.js';
import { bodyOf, callerOf, multitenancyDeps } from '#functions/http/multitenancy-deps.js';
import { httpHandler, ok } from '#functions/shared/http.js';

export const handler = httpHandler({
  routeId: 'tenant-put-v2',
  scope: 'tenant',
  existence: 'lazy',
  run: async (request) => ok(await createOrUpdateTenant(multitenancyDeps, callerOf(request), bodyOf(request), 'v2')),
});
