import { listTenants } from '#functions/domain/multitenancy/tenants.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { multitenancyDeps } from '#functions/wiring/multitenancy.js';

/** `GET /recipe/multitenancy/tenant/list/v2` (docs/reference-behaviour.md "Reading and listing tenants"): only from the app's public tenant. */
export const handler = httpHandler({
  route: { id: 'tenant-list-v2', scope: 'tenant' },
  run: async (_, request) => ok(await listTenants(multitenancyDeps, callerOf(request), 'v2')),
});
