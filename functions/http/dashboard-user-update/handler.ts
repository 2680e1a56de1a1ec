import { parseUpdateDashboardUser, updateDashboardUser } from '#functions/domain/dashboard/service.js';
import { Answer, httpHandler, ok } from '#functions/http/pipeline.js';
import { dashboardPasswordDeps } from '#functions/wiring/dashboard-passwords.js';

/** `PUT /recipe/dashboard/user`: a dashboard user's new email and/or password; its sessions end. */
export const handler = httpHandler({
  route: { id: 'dashboard-user-update', scope: 'app', exists: 'after-input' },
  input: ({ body = {} }) => {
    const parsed = parseUpdateDashboardUser(body);
    return 'early' in parsed ? new Answer(ok(parsed.early)) : parsed;
  },
  run: async (input, { appId, config }) => ok(await updateDashboardUser(dashboardPasswordDeps(config), appId, input)),
});
