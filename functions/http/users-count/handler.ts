import { usersCountQuery } from '#functions/domain/users/input.js';
import { countUsers } from '#functions/domain/users/listing.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /<t>/users/count?includeRecipeIds=&includeAllTenants=`. */
export const handler = httpHandler({
  route: { id: 'users-count', scope: 'tenant' },
  request: { query: usersCountQuery },
  run: async (input, { appId, tenantId, config }) =>
    ok(await countUsers(usersDeps(config), { appId, tenantId }, input)),
});
