import { usersByAccountInfo } from '#functions/domain/users/lookup.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { requiredQuery } from '#functions/shared/input.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /<t>/users/by-accountinfo?email=&phoneNumber=&thirdPartyId=&thirdPartyUserId=&webauthnCredentialId=&doUnionOfAccountInfo=`. */
export const handler = httpHandler({
  route: { id: 'users-by-accountinfo', scope: 'tenant' },
  input: ({ query }) => {
    const union = requiredQuery(query, 'doUnionOfAccountInfo');
    if (union !== 'true' && union !== 'false') {
      throw new BadRequestError("'doUnionOfAccountInfo' should be either 'true' or 'false'");
    }
    for (const kind of ['email', 'phoneNumber', 'thirdPartyId', 'thirdPartyUserId'] as const) {
      const value = query[kind];
      if (value !== undefined) checkIdLength(kind, value.trim());
    }
    return {
      email: query.email,
      phoneNumber: query.phoneNumber,
      thirdPartyId: query.thirdPartyId,
      thirdPartyUserId: query.thirdPartyUserId,
      webauthnCredentialId: query.webauthnCredentialId,
      doUnionOfAccountInfo: union === 'true',
    };
  },
  run: async (input, { appId, tenantId, config }) =>
    ok(await usersByAccountInfo(usersDeps(config), { appId, tenantId }, input)),
});
