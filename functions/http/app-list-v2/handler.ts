import { listApps } from '#functions/domain/multitenancy/service.js';
import { callerOf, multitenancyDeps } from '#functions/http/multitenancy-deps.js';
import { httpHandler, ok } from '#functions/shared/http.js';

export const handler = httpHandler({
  routeId: 'app-list-v2',
  scope: 'tenant',
  existence: 'lazy',
  run: async (request) => ok(await listApps(multitenancyDeps, callerOf(request), 'v2')),
});
