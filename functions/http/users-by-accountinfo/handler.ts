import { usersByAccountInfo } from '#functions/domain/users/service.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { requiredQuery } from '#functions/shared/input.js';
import { usersDeps } from '#functions/storage/user-deps.js';

/** `GET /<t>/users/by-accountinfo?email=&phoneNumber=&thirdPartyId=&thirdPartyUserId=&doUnionOfAccountInfo=`. */
export const handler = httpHandler({
  routeId: 'users-by-accountinfo',
  scope: 'tenant',
  run: async ({ appId, tenantId, query }) => {
    const union = requiredQuery(query, 'doUnionOfAccountInfo');
    if (union !== 'true' && union !== 'false') {
      throw new BadRequestError("'doUnionOfAccountInfo' should be either 'true' or 'false'");
    }
    const input = {
      email: query.email,
      phoneNumber: query.phoneNumber,
      thirdPartyId: query.thirdPartyId,
      thirdPartyUserId: query.thirdPartyUserId,
      doUnionOfAccountInfo: union === 'true',
    };
    return ok(await usersByAccountInfo(usersDeps, { appId, tenantId }, input));
  },
});
