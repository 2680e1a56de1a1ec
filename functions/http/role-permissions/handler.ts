import { roleQuery } from '#functions/domain/roles/input.js';
import { getRolePermissions } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `GET /recipe/role/permissions?role=`: the permissions of a role. */
export const handler = httpHandler({
  route: { id: 'role-permissions', scope: 'app', exists: 'after-input' },
  request: { query: roleQuery },
  run: async (input, request) => ok(await getRolePermissions(roleStore(request.config, request.appId), input)),
});
