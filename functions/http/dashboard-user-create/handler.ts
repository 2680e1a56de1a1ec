import { createDashboardUser, parseCreateDashboardUser } from '#functions/domain/dashboard/service.js';
import { Answer, httpHandler, ok } from '#functions/http/pipeline.js';
import { dashboardPasswordDeps } from '#functions/wiring/dashboard-passwords.js';

/** `POST /recipe/dashboard/user`: a new dashboard user, its password hashed with the app's algorithm. */
export const handler = httpHandler({
  route: { id: 'dashboard-user-create', scope: 'app', exists: 'after-input' },
  input: ({ body = {} }) => {
    const parsed = parseCreateDashboardUser(body);
    return 'early' in parsed ? new Answer(ok(parsed.early)) : parsed;
  },
  run: async (input, { appId, config }) => ok(await createDashboardUser(dashboardPasswordDeps(config), appId, input)),
});
