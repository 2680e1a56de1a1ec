import { removeUserAndItsCodes } from '#functions/domain/passwordless/user-removal.js';
import { userRemoveRequest } from '#functions/domain/users/input.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { userRemovalDeps } from '#functions/wiring/passwordless.js';

/** `POST /user/remove` `{userId, removeAllLinkedAccounts?}` → `{status:"OK"}` (passwordless codes of the removed logins go too). */
export const handler = httpHandler({
  route: { id: 'user-remove', scope: 'app' },
  request: { body: userRemoveRequest },
  run: async (input, { appId, config }) =>
    ok(await removeUserAndItsCodes(userRemovalDeps(config, appId), appId, input)),
});
