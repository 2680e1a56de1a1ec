import { parseRemoveIds, removeStagedUsers } from '#functions/domain/bulk-import/status.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { ForbiddenError } from '#functions/shared/errors.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { PUBLIC } from '#functions/shared/prefix.js';
import { stagingStore } from '#functions/storage/staging-store.js';

/** `POST /bulk-import/users/remove` (spec §4.6): `[]` answers before any app check; no `status` key. */
export const handler = httpHandler({
  routeId: 'bulk-import-users-remove',
  scope: 'tenant',
  existence: 'lazy',
  run: async (request) => {
    const ids = parseRemoveIds(request.body);
    if (ids.length === 0) return ok({ deletedIds: [], invalidIds: [] });
    requireTenant(request);
    if (request.tenantId !== PUBLIC && cdiAtLeast(request.cdiVersion, '5.0')) {
      throw new ForbiddenError('Only public tenantId can call this app specific API');
    }
    return ok(await removeStagedUsers({ store: stagingStore }, request.appId, ids));
  },
});
