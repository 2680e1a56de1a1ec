import { permissionQuery } from '#functions/domain/roles/input.js';
import { getRolesWithPermission } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `GET /recipe/permission/roles?permission=`: the roles that have a permission. */
export const handler = httpHandler({
  route: { id: 'permission-roles', scope: 'app', exists: 'after-input' },
  request: { query: permissionQuery },
  run: async (input, request) => ok(await getRolesWithPermission(roleStore(request.config, request.appId), input)),
});
