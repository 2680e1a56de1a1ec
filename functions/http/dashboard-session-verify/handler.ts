import { sessionIdRequest } from '#functions/domain/dashboard/input.js';
import { verifyDashboardSession } from '#functions/domain/dashboard/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { dashboardDeps } from '#functions/wiring/dashboard.js';

/** `POST /recipe/dashboard/session/verify`: `OK` (with the user's email from CDI 3.0) or `INVALID_SESSION_ERROR`. */
export const handler = httpHandler({
  route: { id: 'dashboard-session-verify', scope: 'app', exists: 'after-input' },
  request: { body: sessionIdRequest },
  input: ({ cdiVersion }, { body }) => ({ ...body, withEmail: cdiAtLeast(cdiVersion, '3.0') }),
  run: async (input, { appId, config }) => ok(await verifyDashboardSession(dashboardDeps(config), appId, input)),
});
