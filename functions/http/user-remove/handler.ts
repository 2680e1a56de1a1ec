import { removeUserAndItsCodes } from '#functions/domain/passwordless/user-removal.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { optionalBoolean, requiredString } from '#functions/shared/input.js';
import { userRemovalDeps } from '#functions/wiring/passwordless.js';

/** `POST /user/remove` `{userId, removeAllLinkedAccounts?}` → `{status:"OK"}` (passwordless codes of the removed logins go too). */
export const handler = httpHandler({
  route: { id: 'user-remove', scope: 'app' },
  input: ({ body = {} }) => {
    const userId = requiredString(body, 'userId');
    checkIdLength('userId', userId);
    return { userId, removeAllLinkedAccounts: optionalBoolean(body, 'removeAllLinkedAccounts') ?? true };
  },
  run: async (input, { appId, config }) =>
    ok(await removeUserAndItsCodes(userRemovalDeps(config, appId), appId, input)),
});
