import { getUserIdMapping, parseUserIdType } from '#functions/domain/users/id-mapping.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { requiredQuery } from '#functions/shared/input.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /recipe/userid/map?userId=&userIdType=SUPERTOKENS|EXTERNAL|ANY`. */
export const handler = httpHandler({
  route: { id: 'userid-map-get', scope: 'app' },
  input: ({ query }) => {
    const userId = requiredQuery(query, 'userId');
    checkIdLength('userId', userId.trim());
    return { userId, userIdType: parseUserIdType(query.userIdType) };
  },
  run: async (input, { appId, config }) => ok(await getUserIdMapping(usersDeps(config), appId, input)),
});
