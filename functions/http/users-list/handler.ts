import { listUsers } from '#functions/domain/users/listing.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { optionalIntQuery } from '#functions/shared/input.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /<t>/users?timeJoinedOrder=&limit=&paginationToken=&includeRecipeIds=&email=&phone=&provider=`. */
export const handler = httpHandler({
  route: { id: 'users-list', scope: 'tenant' },
  input: ({ query }) => ({
    limit: optionalIntQuery(query, 'limit'),
    timeJoinedOrder: query.timeJoinedOrder,
    paginationToken: query.paginationToken,
    includeRecipeIds: query.includeRecipeIds,
    email: query.email,
    phone: query.phone,
    provider: query.provider,
  }),
  run: async (input, { appId, tenantId, config }) => ok(await listUsers(usersDeps(config), { appId, tenantId }, input)),
});
