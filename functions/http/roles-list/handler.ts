import { listRoles } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { roleStore } from '#functions/wiring/app-data.js';

/** `GET /recipe/roles`: every role of the app. */
export const handler = httpHandler({
  route: { id: 'roles-list', scope: 'app' },
  run: async (_, request) => ok(await listRoles(roleStore(request.config, request.appId))),
});
