import { createUserIdMapping } from '#functions/domain/users/id-mapping.js';
import { createMappingRequest } from '#functions/domain/users/input.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `POST /recipe/userid/map` `{superTokensUserId, externalUserId, externalUserIdInfo?, force?}`. */
export const handler = httpHandler({
  route: { id: 'userid-map-create', scope: 'app' },
  request: { body: createMappingRequest },
  run: async (input, { appId, config, cdiVersion }) =>
    ok(await createUserIdMapping(usersDeps(config), appId, input, cdiVersion)),
});
