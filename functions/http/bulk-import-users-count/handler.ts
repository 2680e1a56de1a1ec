import { countStagedUsers, parseStatus } from '#functions/domain/bulk-import/status.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { statusDeps } from '#functions/wiring/bulk-status.js';

/** `GET /bulk-import/users/count` (docs/reference-behaviour.md "Counting staged users"): exact, from the sharded counters. */
export const handler = httpHandler({
  route: { id: 'bulk-import-users-count', scope: 'app' },
  input: ({ query }) => parseStatus(query),
  run: async (status, { appId, config }) =>
    ok({ status: 'OK', count: await countStagedUsers(statusDeps(config), appId, status) }),
});
