import { getUser } from '#functions/domain/users/service.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { requiredQuery } from '#functions/shared/input.js';
import { usersDeps } from '#functions/storage/user-deps.js';

/** `GET /user/id?userId=`: by recipe user id, primary user id or external id. */
export const handler = httpHandler({
  routeId: 'user-get',
  scope: 'app',
  run: async ({ appId, query }) => ok(await getUser(usersDeps, appId, requiredQuery(query, 'userId'))),
});
