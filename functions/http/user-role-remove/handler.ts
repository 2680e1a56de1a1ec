import { userRoleRequest } from '#functions/domain/roles/input.js';
import { removeRoleFromUser } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `POST /<t>/recipe/user/role/remove`: removes a role from a user id in the tenant. */
export const handler = httpHandler({
  route: { id: 'user-role-remove', scope: 'tenant', exists: 'after-input' },
  request: { body: userRoleRequest },
  run: async (input, request) =>
    ok(await removeRoleFromUser(roleStore(request.config, request.appId), request.tenantId, input)),
});
