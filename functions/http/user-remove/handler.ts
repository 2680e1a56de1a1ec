import { removeUser } from '#functions/domain/users/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { optionalBoolean, requiredString } from '#functions/shared/input.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `POST /user/remove` `{userId, removeAllLinkedAccounts?}` → `{status:"OK"}`. */
export const handler = httpHandler({
  route: { id: 'user-remove', scope: 'app' },
  input: ({ body = {} }) => {
    const userId = requiredString(body, 'userId');
    checkIdLength('userId', userId);
    return { userId, removeAllLinkedAccounts: optionalBoolean(body, 'removeAllLinkedAccounts') ?? true };
  },
  run: async (input, { appId, config }) => ok(await removeUser(usersDeps(config), appId, input)),
});
