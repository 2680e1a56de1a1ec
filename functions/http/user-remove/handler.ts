import { removeUser } from '#functions/domain/users/service.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { optionalBoolean, requiredString } from '#functions/shared/input.js';
import { usersDeps } from '#functions/storage/user-deps.js';

/** `POST /user/remove` `{userId, removeAllLinkedAccounts?}` → `{status:"OK"}`. */
export const handler = httpHandler({
  routeId: 'user-remove',
  scope: 'app',
  run: async ({ appId, body = {} }) => {
    const input = {
      userId: requiredString(body, 'userId'),
      removeAllLinkedAccounts: optionalBoolean(body, 'removeAllLinkedAccounts') ?? true,
    };
    return ok(await removeUser(usersDeps, appId, input));
  },
});
