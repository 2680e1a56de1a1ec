import { listUsers } from '#functions/domain/users/service.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { optionalIntQuery } from '#functions/shared/input.js';
import { usersDeps } from '#functions/storage/user-deps.js';

/** `GET /<t>/users?timeJoinedOrder=&limit=&paginationToken=&includeRecipeIds=`. */
export const handler = httpHandler({
  routeId: 'users-list',
  scope: 'tenant',
  run: async ({ appId, tenantId, query }) => {
    const input = {
      limit: optionalIntQuery(query, 'limit'),
      timeJoinedOrder: query.timeJoinedOrder,
      paginationToken: query.paginationToken,
      includeRecipeIds: query.includeRecipeIds,
    };
    return ok(await listUsers(usersDeps, { appId, tenantId }, input));
  },
});
