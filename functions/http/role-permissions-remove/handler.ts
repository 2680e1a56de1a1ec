import { removePermissionsRequest } from '#functions/domain/roles/input.js';
import { removePermissionsFromRole } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `POST /recipe/role/permissions/remove` `{role, permissions?}`: removes permissions (none named: all) from a role. */
export const handler = httpHandler({
  route: { id: 'role-permissions-remove', scope: 'app', exists: 'after-input' },
  request: { body: removePermissionsRequest },
  run: async (input, request) => ok(await removePermissionsFromRole(roleStore(request.config, request.appId), input)),
});
