import { randomUUID } from 'node:crypto';
import { validateSingleImport } from '#functions/domain/bulk-import/validate-request.js';
import { importUser } from '#functions/domain/import/import-user.js';
import { getUser } from '#functions/domain/users/service.js';
import { JsonBadRequestError } from '#functions/shared/errors.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { importValidationContext } from '#functions/storage/import-context.js';
import { usersDeps } from '#functions/storage/user-deps.js';
import { userStore } from '#functions/storage/user-store.js';

/** `POST /bulk-import/import` (spec §4.7): validate one user, then run THE import function. */
export const handler = httpHandler({
  routeId: 'bulk-import-import',
  scope: 'app',
  run: async ({ appId, body, config }) => {
    const validation = validateSingleImport(body, {
      now: Date.now(),
      newId: randomUUID,
      ...(await importValidationContext(appId, config)),
    });
    if (!validation.ok) throw new JsonBadRequestError(validation.body);
    const outcome = await importUser({ store: userStore }, { appId, user: validation.user, config });
    switch (outcome.kind) {
      case 'imported':
        return ok({ status: 'OK', user: outcome.user });
      case 'already-imported':
        // Only possible when an earlier attempt of this very request committed (its ids are fresh).
        return ok(await getUser(usersDeps, appId, validation.user.externalUserId ?? outcome.userId));
      case 'failed':
        throw new JsonBadRequestError({ errors: outcome.errors });
      case 'extra-write-failed':
        throw new Error('unexpected failure of a caller write');
    }
  },
});
