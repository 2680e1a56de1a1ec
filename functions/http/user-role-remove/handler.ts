import { parseUserRole, removeRoleFromUser } from '#functions/domain/roles/service.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { roleStore } from '#functions/storage/role-store.js';

/** `POST /<t>/recipe/user/role/remove`: removes a role from a user id in the tenant. */
export const handler = httpHandler({
  routeId: 'user-role-remove',
  scope: 'tenant',
  // The reference validates the request before it looks the app up.
  existence: 'lazy',
  run: async (request) => {
    const input = parseUserRole(request.body ?? {});
    requireTenant(request);
    return ok(await removeRoleFromUser(roleStore, request.appId, request.tenantId, input));
  },
});
