import { getRolesForUser, parseUserIdQuery } from '#functions/domain/roles/service.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { roleStore } from '#functions/storage/role-store.js';

/** `GET /<t>/recipe/user/roles?userId=`: the roles of a user id in the tenant. */
export const handler = httpHandler({
  routeId: 'user-roles-get',
  scope: 'tenant',
  // The reference validates the request before it looks the app up.
  existence: 'lazy',
  run: async (request) => {
    const input = parseUserIdQuery(request.query);
    requireTenant(request);
    return ok(await getRolesForUser(roleStore, request.appId, request.tenantId, input));
  },
});
