import { countUsers } from '#functions/domain/users/service.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { usersDeps } from '#functions/storage/user-deps.js';

/** `GET /<t>/users/count?includeRecipeIds=&includeAllTenants=`. */
export const handler = httpHandler({
  routeId: 'users-count',
  scope: 'tenant',
  run: async ({ appId, tenantId, query }) => {
    const input = { includeRecipeIds: query.includeRecipeIds, includeAllTenants: query.includeAllTenants === 'true' };
    return ok(await countUsers(usersDeps, { appId, tenantId }, input));
  },
});
