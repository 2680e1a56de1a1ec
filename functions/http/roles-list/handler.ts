import { listRoles } from '#functions/domain/roles/service.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { roleStore } from '#functions/storage/role-store.js';

/** `GET /recipe/roles`: every role of the app. */
export const handler = httpHandler({
  routeId: 'roles-list',
  scope: 'app',
  run: async (request) => ok(await listRoles(roleStore, request.appId)),
});
