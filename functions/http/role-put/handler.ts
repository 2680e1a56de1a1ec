import { createRole, parseCreateRole } from '#functions/domain/roles/service.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { roleStore } from '#functions/storage/role-store.js';

/** `PUT /recipe/role`: creates a role or adds permissions to it. */
export const handler = httpHandler({
  routeId: 'role-put',
  scope: 'app',
  // The reference validates the request before it looks the app up.
  existence: 'lazy',
  run: async (request) => {
    const input = parseCreateRole(request.body ?? {});
    requireTenant(request);
    return ok(await createRole(roleStore, request.appId, input));
  },
});
