import { signInRequest } from '#functions/domain/dashboard/input.js';
import { signInDashboardUser } from '#functions/domain/dashboard/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { dashboardPasswordDeps } from '#functions/wiring/dashboard-passwords.js';

/** `POST /recipe/dashboard/signin`: a dashboard user's `sessionId`, or `INVALID_CREDENTIALS_ERROR`. */
export const handler = httpHandler({
  route: { id: 'dashboard-signin', scope: 'app', exists: 'after-input' },
  request: { body: signInRequest },
  run: async (input, { appId, config }) => ok(await signInDashboardUser(dashboardPasswordDeps(config), appId, input)),
});
