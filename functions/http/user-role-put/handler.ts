import { addRoleToUser, parseUserRole } from '#functions/domain/roles/service.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { roleStore } from '#functions/storage/role-store.js';

/** `PUT /<t>/recipe/user/role`: assigns a role to a user id in the tenant. */
export const handler = httpHandler({
  routeId: 'user-role-put',
  scope: 'tenant',
  // The reference validates the request before it looks the app up.
  existence: 'lazy',
  run: async (request) => {
    const input = parseUserRole(request.body ?? {});
    requireTenant(request);
    return ok(await addRoleToUser(roleStore, request.appId, request.tenantId, input));
  },
});
