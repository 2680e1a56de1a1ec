import { roleQuery } from '#functions/domain/roles/input.js';
import { getRoleUsers } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `GET /<t>/recipe/role/users?role=`: user ids with the role in the tenant. */
export const handler = httpHandler({
  route: { id: 'role-users', scope: 'tenant', exists: 'after-input' },
  request: { query: roleQuery },
  run: async (input, request) =>
    ok(await getRoleUsers(roleStore(request.config, request.appId), request.tenantId, input)),
});
