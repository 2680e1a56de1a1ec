import { listDashboardUsers } from '#functions/domain/dashboard/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { dashboardDeps } from '#functions/wiring/dashboard.js';

/** `GET /recipe/dashboard/users`: every dashboard user of the app, oldest first. */
export const handler = httpHandler({
  route: { id: 'dashboard-users-list', scope: 'app' },
  run: async (_, { appId, config }) => ok(await listDashboardUsers(dashboardDeps(config), appId)),
});
