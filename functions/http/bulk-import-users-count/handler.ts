import { countStagedUsers, parseStatus } from '#functions/domain/bulk-import/status.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { stagingStore } from '#functions/storage/staging-store.js';

/** `GET /bulk-import/users/count` (spec §4.5): exact, from the sharded counters. */
export const handler = httpHandler({
  routeId: 'bulk-import-users-count',
  scope: 'app',
  run: async ({ appId, query }) => {
    const count = await countStagedUsers({ store: stagingStore }, appId, parseStatus(query));
    return ok({ status: 'OK', count });
  },
});
