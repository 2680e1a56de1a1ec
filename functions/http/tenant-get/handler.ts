import { getTenant } from '#functions/domain/multitenancy/service.js';
import { callerOf } from '#functions/http/multitenancy-deps.js';
import { httpHandler, ok } from '#functions/shared/http.js';

export const handler = httpHandler({
  routeId: 'tenant-get',
  scope: 'tenant',
  existence: 'lazy',
  run: async (request) => ok(getTenant(callerOf(request), request.app, 'legacy')),
});
