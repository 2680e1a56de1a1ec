import { deleteUserQuery } from '#functions/domain/dashboard/input.js';
import { deleteDashboardUser } from '#functions/domain/dashboard/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { dashboardDeps } from '#functions/wiring/dashboard.js';

/** `DELETE /recipe/dashboard/user?userId=` (or `?email=`): removes a dashboard user and its sessions. */
export const handler = httpHandler({
  route: { id: 'dashboard-user-remove', scope: 'app', exists: 'after-input' },
  request: { query: deleteUserQuery },
  run: async (input, { appId, config }) => ok(await deleteDashboardUser(dashboardDeps(config), appId, input)),
});
