import { userGetQuery } from '#functions/domain/users/input.js';
import { getUser } from '#functions/domain/users/lookup.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /user/id?userId=`: by recipe user id, primary user id or external id. */
export const handler = httpHandler({
  route: { id: 'user-get', scope: 'app' },
  request: { query: userGetQuery },
  input: (_, { query }) => query.userId,
  run: async (userId, { appId, config }) => ok(await getUser(usersDeps(config), appId, userId)),
});
