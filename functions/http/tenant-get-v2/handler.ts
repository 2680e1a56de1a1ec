import { getTenant } from '#functions/domain/multitenancy/tenants.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { tenantStore } from '#functions/wiring/stores.js';

/** `GET /<t>/recipe/multitenancy/tenant/v2`: an unknown app or tenant is `TENANT_NOT_FOUND_ERROR`, not a 400. */
export const handler = httpHandler({
  route: { id: 'tenant-get-v2', scope: 'tenant', exists: 'never' },
  // The SDK reads the tenant's providers here, secrets included (opened: access.credentials 'open').
  run: async (_, request) => ok(await getTenant({ store: tenantStore }, callerOf(request), request.app, 'v2')),
});
