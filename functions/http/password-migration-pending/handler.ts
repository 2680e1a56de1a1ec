import { listPendingPasswords } from '#functions/domain/password-hook/readiness.js';
import { pendingPasswordsQuery } from '#functions/domain/users/input.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/**
 * `GET /appid-<a>/password-migration/pending?limit=&paginationToken=` → `{status:"OK", users:
 * [{userId, email, timeJoined}], nextPaginationToken?}` (docs/password-migration-hook.md).
 */
export const handler = httpHandler({
  route: { id: 'password-migration-pending', scope: 'app' },
  request: { query: pendingPasswordsQuery },
  run: async (input, { appId, config }) => ok(await listPendingPasswords(usersDeps(config).store, appId, input)),
});
