import { createUserIdMapping, parseCreateMapping } from '#functions/domain/users/id-mapping.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `POST /recipe/userid/map` `{superTokensUserId, externalUserId, externalUserIdInfo?, force?}`. */
export const handler = httpHandler({
  route: { id: 'userid-map-create', scope: 'app' },
  input: ({ body = {} }) => {
    const input = parseCreateMapping(body);
    checkIdLength('userId', input.superTokensUserId.trim(), 'superTokensUserId');
    checkIdLength('externalUserId', input.externalUserId.trim());
    if (input.externalUserIdInfo !== undefined) checkIdLength('externalUserIdInfo', input.externalUserIdInfo.trim());
    return input;
  },
  run: async (input, { appId, config, cdiVersion }) =>
    ok(await createUserIdMapping(usersDeps(config), appId, input, cdiVersion)),
});
