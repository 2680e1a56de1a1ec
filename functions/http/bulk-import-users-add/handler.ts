import { stageRequest } from '#functions/domain/bulk-import/staging.js';
import { stagingUsersOf } from '#functions/domain/bulk-import/validate-request.js';
import { Answer, httpHandler, ok } from '#functions/http/pipeline.js';
import { stagingDeps } from '#functions/wiring/bulk-import.js';
import { importValidationContext } from '#functions/wiring/import.js';

/**
 * `POST /bulk-import/users` (spec §4.3). The body checks precede the app checks (empty → 200 for
 * any app); then the app and tenant must exist and the tenant be public, in the reference's order.
 */
export const handler = httpHandler({
  route: {
    id: 'bulk-import-users-add',
    scope: 'tenant',
    exists: 'after-input',
    publicTenantOnly: true,
    largeBody: true,
  },
  input: ({ body }) => {
    const users = stagingUsersOf(body);
    return users.length === 0 ? new Answer(ok({ status: 'OK' })) : users;
  },
  run: async (users, { appId, config }) =>
    ok(await stageRequest(stagingDeps(config), appId, users, await importValidationContext(appId, config))),
});
