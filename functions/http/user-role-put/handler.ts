import { addRoleToUser, parseUserRole } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `PUT /<t>/recipe/user/role`: assigns a role to a user id in the tenant. */
export const handler = httpHandler({
  routeId: 'user-role-put',
  scope: 'tenant',
  // The reference validates the request before it looks the app up.
  tenantMustExist: 'after-input',
  input: (request) => parseUserRole(request.body ?? {}),
  run: async (input, request) =>
    ok(await addRoleToUser(roleStore(request.config), request.appId, request.tenantId, input)),
});
