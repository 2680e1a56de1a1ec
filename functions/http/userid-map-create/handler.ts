import { createUserIdMapping, parseCreateMapping } from '#functions/domain/users/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `POST /recipe/userid/map` `{superTokensUserId, externalUserId, externalUserIdInfo?, force?}`. */
export const handler = httpHandler({
  route: { id: 'userid-map-create', scope: 'app' },
  input: ({ body = {} }) => parseCreateMapping(body),
  run: async (input, { appId, config }) => ok(await createUserIdMapping(usersDeps(config), appId, input)),
});
