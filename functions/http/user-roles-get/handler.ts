import { userIdQuery } from '#functions/domain/roles/input.js';
import { getRolesForUser } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `GET /<t>/recipe/user/roles?userId=`: the roles of a user id in the tenant. */
export const handler = httpHandler({
  route: { id: 'user-roles-get', scope: 'tenant', exists: 'after-input' },
  request: { query: userIdQuery },
  run: async (input, request) =>
    ok(await getRolesForUser(roleStore(request.config, request.appId), request.tenantId, input)),
});
