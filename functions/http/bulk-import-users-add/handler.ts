import { randomUUID } from 'node:crypto';
import { stageUsers } from '#functions/domain/bulk-import/staging.js';
import {
  buildStagingSuccessBody,
  precheckStagingBody,
  validateStagingRequest,
} from '#functions/domain/bulk-import/validate-request.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { BadRequestError, ForbiddenError, JsonBadRequestError } from '#functions/shared/errors.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { logger } from '#functions/shared/logger.js';
import { PUBLIC } from '#functions/shared/prefix.js';
import { importValidationContext } from '#functions/storage/import-context.js';
import { importPublisher, stagingStore } from '#functions/storage/staging-deps.js';

/**
 * `POST /bulk-import/users` (spec §4.3). The body checks precede the app checks (empty → 200 for
 * any app), so existence and the public-tenant rule are checked here, in the reference's order.
 */
export const handler = httpHandler({
  routeId: 'bulk-import-users-add',
  scope: 'tenant',
  existence: 'lazy',
  run: async (request) => {
    const precheck = precheckStagingBody(request.body);
    if (precheck.kind === 'usersFieldInvalid') throw new BadRequestError(precheck.message);
    if (precheck.kind === 'empty') return ok({ status: 'OK' });
    if (precheck.kind === 'tooManyUsers') throw new JsonBadRequestError(precheck.body);
    requireTenant(request);
    if (request.tenantId !== PUBLIC && cdiAtLeast(request.cdiVersion, '5.0')) {
      throw new ForbiddenError('Only public tenantId can call this app specific API');
    }
    const { appId, config } = request;
    const validation = validateStagingRequest(request.body, {
      now: Date.now(),
      newId: randomUUID,
      ...(await importValidationContext(appId, config)),
    });
    if (!validation.ok) throw new JsonBadRequestError(validation.body);
    const deps = {
      store: stagingStore,
      publisher: importPublisher,
      now: Date.now,
      newId: randomUUID,
      warn: logger.warn,
    };
    const staged = await stageUsers(deps, appId, validation.users);
    return ok(buildStagingSuccessBody(staged) as unknown as Record<string, unknown>);
  },
});
