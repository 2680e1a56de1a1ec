import { listStagedUsers, parseListQuery } from '#functions/domain/bulk-import/status.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { statusDeps } from '#functions/wiring/bulk-status.js';

/** `GET /bulk-import/users` (docs/reference-behaviour.md "Listing staged users"): newest first, credentials omitted. */
export const handler = httpHandler({
  route: { id: 'bulk-import-users-list', scope: 'app' },
  input: ({ query }) => parseListQuery(query),
  run: async (query, { appId, config }) => ok(await listStagedUsers(statusDeps(config), appId, query)),
});
