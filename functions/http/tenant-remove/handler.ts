import { parseTenantRemove, removeTenant } from '#functions/domain/multitenancy/service.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { multitenancyDeps } from '#functions/wiring/multitenancy.js';

/** `POST /recipe/multitenancy/tenant/remove` (spec §2.5): never `public`. */
export const handler = httpHandler({
  routeId: 'tenant-remove',
  scope: 'tenant',
  // The reference validates the body before it looks the app up.
  tenantMustExist: 'after-input',
  input: (request) => parseTenantRemove(request.body ?? {}),
  run: async (input, request) => ok(await removeTenant(multitenancyDeps, callerOf(request), input)),
});
