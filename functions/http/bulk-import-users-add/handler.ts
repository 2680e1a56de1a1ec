import { stageRequest } from '#functions/domain/bulk-import/staging.js';
import { precheckStagingBody } from '#functions/domain/bulk-import/validate-request.js';
import { Answer, httpHandler, ok } from '#functions/http/pipeline.js';
import { BadRequestError, JsonBadRequestError } from '#functions/shared/errors.js';
import { stagingDeps } from '#functions/wiring/bulk-import.js';
import { importValidationContext } from '#functions/wiring/import.js';

/**
 * `POST /bulk-import/users` (spec §4.3). The body checks precede the app checks (empty → 200 for
 * any app); then the app and tenant must exist and the tenant be public, in the reference's order.
 */
export const handler = httpHandler({
  route: { id: 'bulk-import-users-add', scope: 'tenant', exists: 'after-input', publicTenantOnly: true },
  input: ({ body }) => {
    const precheck = precheckStagingBody(body);
    if (precheck.kind === 'usersFieldInvalid') throw new BadRequestError(precheck.message);
    if (precheck.kind === 'empty') return new Answer(ok({ status: 'OK' }));
    if (precheck.kind === 'tooManyUsers') throw new JsonBadRequestError(precheck.body);
    return precheck.users;
  },
  run: async (users, { appId, config }) =>
    ok(await stageRequest(stagingDeps(config), appId, users, await importValidationContext(appId, config))),
});
