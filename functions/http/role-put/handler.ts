import { createRoleRequest } from '#functions/domain/roles/input.js';
import { createRole } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `PUT /recipe/role`: creates a role or adds permissions to it. */
export const handler = httpHandler({
  route: { id: 'role-put', scope: 'app', exists: 'after-input' },
  request: { body: createRoleRequest },
  run: async (input, request) => ok(await createRole(roleStore(request.config, request.appId), input)),
});
