import { parseRemoveMapping, removeUserIdMapping } from '#functions/domain/users/id-mapping.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `POST /recipe/userid/map/remove` `{userId, userIdType?, force?}` → `{status:"OK", didMappingExist}`. */
export const handler = httpHandler({
  route: { id: 'userid-map-remove', scope: 'app', exists: 'after-input' },
  input: ({ body = {} }) => {
    const input = parseRemoveMapping(body);
    checkIdLength('userId', input.userId);
    return input;
  },
  run: async (input, { appId, config }) => ok(await removeUserIdMapping(usersDeps(config), appId, input)),
});
