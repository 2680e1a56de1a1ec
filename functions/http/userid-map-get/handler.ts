import { getUserIdMapping, parseUserIdType } from '#functions/domain/users/service.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { requiredQuery } from '#functions/shared/input.js';
import { usersDeps } from '#functions/storage/user-deps.js';

/** `GET /recipe/userid/map?userId=&userIdType=SUPERTOKENS|EXTERNAL|ANY`. */
export const handler = httpHandler({
  routeId: 'userid-map-get',
  scope: 'app',
  run: async ({ appId, query }) => {
    const userId = requiredQuery(query, 'userId');
    return ok(await getUserIdMapping(usersDeps, appId, { userId, userIdType: parseUserIdType(query.userIdType) }));
  },
});
