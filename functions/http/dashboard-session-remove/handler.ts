import { sessionIdQuery } from '#functions/domain/dashboard/input.js';
import { revokeDashboardSession } from '#functions/domain/dashboard/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { dashboardDeps } from '#functions/wiring/dashboard.js';

/** `DELETE /recipe/dashboard/session?sessionId=`: ends a dashboard session (`OK` whether or not it existed). */
export const handler = httpHandler({
  route: { id: 'dashboard-session-remove', scope: 'app', exists: 'after-input' },
  request: { query: sessionIdQuery },
  run: async (input, { appId, config }) => ok(await revokeDashboardSession(dashboardDeps(config), appId, input)),
});
