import { parseUpdateUserBody } from '#functions/domain/accounts/inputs.js';
import { updateEmailOrPassword } from '#functions/domain/accounts/update-user.js';
import { parsePasswordlessUserUpdate, updatePasswordlessUser } from '#functions/domain/passwordless/user-update.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { accountsDeps } from '#functions/wiring/accounts.js';
import { userRemovalDeps } from '#functions/wiring/passwordless.js';
import { passwordPorts } from '#functions/wiring/passwords.js';

/**
 * `PUT /recipe/user`: the reference routes by the `rid` header — `passwordless` updates a
 * passwordless user's email and/or phone number `{recipeUserId, email?, phoneNumber?}`; any other
 * (the SDK sends `emailpassword`) an email/password user's email and/or password
 * `{recipeUserId, email?, password?}`.
 */
export const handler = httpHandler({
  route: { id: 'recipe-user-put', scope: 'app', exists: 'after-input' },
  input: ({ body = {}, cdiVersion, headers }) =>
    headers.rid === 'passwordless'
      ? ({ recipe: 'passwordless', update: parsePasswordlessUserUpdate(body, cdiVersion) } as const)
      : ({ recipe: 'emailpassword', update: parseUpdateUserBody(body, cdiAtLeast(cdiVersion, '4.0')) } as const),
  run: async (input, { appId, config }) =>
    input.recipe === 'passwordless'
      ? ok(await updatePasswordlessUser(userRemovalDeps(config, appId), appId, input.update))
      : ok(await updateEmailOrPassword(accountsDeps(config, appId), passwordPorts(config), input.update)),
});
