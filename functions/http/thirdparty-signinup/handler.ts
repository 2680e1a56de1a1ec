import { parseSignInUp, thirdPartySignInUp } from '#functions/domain/thirdparty/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/**
 * `POST /<t>/recipe/signinup` `{thirdPartyId, thirdPartyUserId, email: {id, isVerified}}` →
 * `OK` with `createdNewUser`, `user`, `recipeUserId`, or `EMAIL_CHANGE_NOT_ALLOWED_ERROR`.
 */
export const handler = httpHandler({
  route: { id: 'thirdparty-signinup', scope: 'tenant', exists: 'after-input' },
  input: ({ body = {}, cdiVersion }) => parseSignInUp(body, cdiVersion),
  run: async (input, { appId, tenantId, tenant, cdiVersion, config }) =>
    ok(await thirdPartySignInUp(usersDeps(config), { appId, tenantId, tenant: tenant!, cdiVersion }, input)),
});
