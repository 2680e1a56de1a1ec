import { userRoleRequest } from '#functions/domain/roles/input.js';
import { addRoleToUser } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `PUT /<t>/recipe/user/role`: assigns a role to a user id in the tenant. */
export const handler = httpHandler({
  route: { id: 'user-role-put', scope: 'tenant', exists: 'after-input' },
  request: { body: userRoleRequest },
  run: async (input, request) =>
    ok(await addRoleToUser(roleStore(request.config, request.appId), request.tenantId, input)),
});
