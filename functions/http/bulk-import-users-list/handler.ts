import { listStagedUsers, parseListQuery } from '#functions/domain/bulk-import/status.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { stagingStore } from '#functions/storage/staging-store.js';

/** `GET /bulk-import/users` (spec §4.4): newest first, credentials omitted. */
export const handler = httpHandler({
  routeId: 'bulk-import-users-list',
  scope: 'app',
  run: async ({ appId, query }) => ok(await listStagedUsers({ store: stagingStore }, appId, parseListQuery(query))),
});
