import { removeRoleRequest } from '#functions/domain/roles/input.js';
import { removeRole } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `POST /recipe/role/remove`: deletes a role and all its assignments. */
export const handler = httpHandler({
  route: { id: 'role-remove', scope: 'app', exists: 'after-input' },
  request: { body: removeRoleRequest },
  run: async (input, request) => ok(await removeRole(roleStore(request.config, request.appId), input)),
});
