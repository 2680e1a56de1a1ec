import { getRolePermissions, parseRoleQuery } from '#functions/domain/roles/service.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { roleStore } from '#functions/storage/role-store.js';

/** `GET /recipe/role/permissions?role=`: the permissions of a role. */
export const handler = httpHandler({
  routeId: 'role-permissions',
  scope: 'app',
  // The reference validates the request before it looks the app up.
  existence: 'lazy',
  run: async (request) => {
    const input = parseRoleQuery(request.query);
    requireTenant(request);
    return ok(await getRolePermissions(roleStore, request.appId, input));
  },
});
