import { getUserIdMapping } from '#functions/domain/users/id-mapping.js';
import { mappingQuery } from '#functions/domain/users/input.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /recipe/userid/map?userId=&userIdType=SUPERTOKENS|EXTERNAL|ANY`. */
export const handler = httpHandler({
  route: { id: 'userid-map-get', scope: 'app' },
  request: { query: mappingQuery },
  run: async (input, { appId, config }) => ok(await getUserIdMapping(usersDeps(config), appId, input)),
});
