import { getRoleUsers, parseRoleQuery } from '#functions/domain/roles/service.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { roleStore } from '#functions/storage/role-store.js';

/** `GET /<t>/recipe/role/users?role=`: user ids with the role in the tenant. */
export const handler = httpHandler({
  routeId: 'role-users',
  scope: 'tenant',
  // The reference validates the request before it looks the app up.
  existence: 'lazy',
  run: async (request) => {
    const input = parseRoleQuery(request.query);
    requireTenant(request);
    return ok(await getRoleUsers(roleStore, request.appId, request.tenantId, input));
  },
});
