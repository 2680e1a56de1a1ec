import { parseRemoveIds, removeStagedUsers } from '#functions/domain/bulk-import/status.js';
import { Answer, httpHandler, ok } from '#functions/http/pipeline.js';
import { statusDeps } from '#functions/wiring/bulk-status.js';

/** `POST /bulk-import/users/remove` (docs/reference-behaviour.md "Removing staged users"): `[]` answers before any app check; no `status` key. */
export const handler = httpHandler({
  route: { id: 'bulk-import-users-remove', scope: 'tenant', exists: 'after-input', publicTenantOnly: true },
  input: ({ body }) => {
    const ids = parseRemoveIds(body);
    return ids.length === 0 ? new Answer(ok({ deletedIds: [], invalidIds: [] })) : ids;
  },
  run: async (ids, { appId, config }) => ok(await removeStagedUsers(statusDeps(config), appId, ids)),
});
