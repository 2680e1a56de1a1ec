import { userIdQuery } from '#functions/domain/dashboard/input.js';
import { listDashboardUserSessions } from '#functions/domain/dashboard/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { dashboardDeps } from '#functions/wiring/dashboard.js';

/** `GET /recipe/dashboard/user/sessions?userId=`: a dashboard user's live sessions (never their ids). */
export const handler = httpHandler({
  route: { id: 'dashboard-user-sessions', scope: 'app', exists: 'after-input' },
  request: { query: userIdQuery },
  run: async (input, { appId, config }) => ok(await listDashboardUserSessions(dashboardDeps(config), appId, input)),
});
