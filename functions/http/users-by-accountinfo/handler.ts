import { usersByAccountInfoQuery } from '#functions/domain/users/input.js';
import { usersByAccountInfo } from '#functions/domain/users/lookup.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /<t>/users/by-accountinfo?email=&phoneNumber=&thirdPartyId=&thirdPartyUserId=&webauthnCredentialId=&doUnionOfAccountInfo=`. */
export const handler = httpHandler({
  route: { id: 'users-by-accountinfo', scope: 'tenant' },
  request: { query: usersByAccountInfoQuery },
  run: async (input, { appId, tenantId, config }) =>
    ok(await usersByAccountInfo(usersDeps(config), { appId, tenantId }, input)),
});
