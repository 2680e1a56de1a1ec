import { getUser } from '#functions/domain/users/lookup.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { requiredQuery } from '#functions/shared/input.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /user/id?userId=`: by recipe user id, primary user id or external id. */
export const handler = httpHandler({
  route: { id: 'user-get', scope: 'app' },
  input: ({ query }) => {
    const userId = requiredQuery(query, 'userId');
    checkIdLength('userId', userId);
    return userId;
  },
  run: async (userId, { appId, config }) => ok(await getUser(usersDeps(config), appId, userId)),
});
