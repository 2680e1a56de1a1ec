import { parseTenantRemove } from '#functions/domain/multitenancy/input.js';
import { removeTenant } from '#functions/domain/multitenancy/tenants.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { multitenancyDeps } from '#functions/wiring/multitenancy.js';

/** `POST /recipe/multitenancy/tenant/remove` (docs/reference-behaviour.md "Removing a tenant"): never `public`. */
export const handler = httpHandler({
  route: { id: 'tenant-remove', scope: 'tenant', exists: 'after-input' },
  input: (request) => parseTenantRemove(request.body ?? {}),
  run: async (input, request) => ok(await removeTenant(multitenancyDeps, callerOf(request), input)),
});
