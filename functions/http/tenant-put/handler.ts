import { parseTenantPut } from '#functions/domain/multitenancy/input.js';
import { createOrUpdateTenant } from '#functions/domain/multitenancy/tenants.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { multitenancyDeps } from '#functions/wiring/multitenancy.js';

/** `PUT /recipe/multitenancy/tenant` (docs/reference-behaviour.md "Creating or updating a tenant", legacy input): creates or updates a tenant. */
export const handler = httpHandler({
  route: { id: 'tenant-put', scope: 'tenant', exists: 'after-input' },
  input: (request) => parseTenantPut(request.body ?? {}, callerOf(request), 'legacy'),
  run: async (input, request) => ok(await createOrUpdateTenant(multitenancyDeps, callerOf(request), input, 'legacy')),
});
