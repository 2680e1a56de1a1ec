import { listPendingPasswords } from '#functions/domain/password-hook/readiness.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { optionalIntQuery } from '#functions/shared/input.js';
import { usersDeps } from '#functions/wiring/users.js';

/**
 * `GET /appid-<a>/password-migration/pending?limit=&paginationToken=` → `{status:"OK", users:
 * [{userId, email, timeJoined}], nextPaginationToken?}` (docs/password-migration-hook.md).
 */
export const handler = httpHandler({
  route: { id: 'password-migration-pending', scope: 'app' },
  input: ({ query }) => ({ limit: optionalIntQuery(query, 'limit'), paginationToken: query.paginationToken }),
  run: async (input, { appId, config }) => ok(await listPendingPasswords(usersDeps(config).store, appId, input)),
});
