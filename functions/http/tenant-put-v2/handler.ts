import { parseTenantPut } from '#functions/domain/multitenancy/input.js';
import { createOrUpdateTenant } from '#functions/domain/multitenancy/tenants.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { multitenancyDeps } from '#functions/wiring/multitenancy.js';

/** `PUT /recipe/multitenancy/tenant/v2` (docs/reference-behaviour.md "Creating or updating a tenant"): creates or updates a tenant. */
export const handler = httpHandler({
  route: { id: 'tenant-put-v2', scope: 'tenant', exists: 'after-input' },
  input: (request) => parseTenantPut(request.body ?? {}, callerOf(request), 'v2'),
  run: async (input, request) => ok(await createOrUpdateTenant(multitenancyDeps, callerOf(request), input, 'v2')),
});
