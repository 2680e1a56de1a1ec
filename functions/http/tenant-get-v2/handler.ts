import { getTenant } from '#functions/domain/multitenancy/service.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';

/** `GET /<t>/recipe/multitenancy/tenant/v2`: an unknown app or tenant is `TENANT_NOT_FOUND_ERROR`, not a 400. */
export const handler = httpHandler({
  route: { id: 'tenant-get-v2', scope: 'tenant', exists: 'never' },
  run: (_, request) => ok(getTenant(callerOf(request), request.app, 'v2')),
});
