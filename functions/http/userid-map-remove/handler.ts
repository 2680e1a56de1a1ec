import { removeUserIdMapping } from '#functions/domain/users/id-mapping.js';
import { removeMappingRequest } from '#functions/domain/users/input.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `POST /recipe/userid/map/remove` `{userId, userIdType?, force?}` → `{status:"OK", didMappingExist}`. */
export const handler = httpHandler({
  route: { id: 'userid-map-remove', scope: 'app', exists: 'after-input' },
  request: { body: removeMappingRequest },
  run: async (input, { appId, config }) => ok(await removeUserIdMapping(usersDeps(config), appId, input)),
});
