import { parseRemoveRole, removeRole } from '#functions/domain/roles/service.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { roleStore } from '#functions/storage/role-store.js';

/** `POST /recipe/role/remove`: deletes a role and all its assignments. */
export const handler = httpHandler({
  routeId: 'role-remove',
  scope: 'app',
  // The reference validates the request before it looks the app up.
  existence: 'lazy',
  run: async (request) => {
    const input = parseRemoveRole(request.body ?? {});
    requireTenant(request);
    return ok(await removeRole(roleStore, request.appId, input));
  },
});
