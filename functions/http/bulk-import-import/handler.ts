import { importOneUser } from '#functions/domain/bulk-import/import-one.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { importDeps, importValidationContext } from '#functions/wiring/import.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `POST /bulk-import/import` (docs/reference-behaviour.md "Importing one user"): validate one user, then run THE import function. */
export const handler = httpHandler({
  route: { id: 'bulk-import-import', scope: 'app' },
  run: async (_, { appId, body, config }) =>
    ok(
      await importOneUser(
        {
          import: importDeps(config),
          users: usersDeps(config),
          validation: await importValidationContext(appId, config),
        },
        { appId, body, config },
      ),
    ),
});
