import { usersListQuery } from '#functions/domain/users/input.js';
import { listUsers } from '#functions/domain/users/listing.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /<t>/users?timeJoinedOrder=&limit=&paginationToken=&includeRecipeIds=&email=&phone=&provider=`. */
export const handler = httpHandler({
  route: { id: 'users-list', scope: 'tenant' },
  request: { query: usersListQuery },
  run: async (input, { appId, tenantId, config }) => ok(await listUsers(usersDeps(config), { appId, tenantId }, input)),
});
