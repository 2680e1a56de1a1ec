import { getRolePermissions, parseRoleQuery } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `GET /recipe/role/permissions?role=`: the permissions of a role. */
export const handler = httpHandler({
  routeId: 'role-permissions',
  scope: 'app',
  // The reference validates the request before it looks the app up.
  tenantMustExist: 'after-input',
  input: (request) => parseRoleQuery(request.query),
  run: async (input, request) => ok(await getRolePermissions(roleStore(request.config), request.appId, input)),
});
