import { parseUpdateUserBody } from '#functions/domain/accounts/inputs.js';
import { updateEmailOrPassword } from '#functions/domain/accounts/update-user.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { accountsDeps } from '#functions/wiring/accounts.js';
import { passwordPorts } from '#functions/wiring/passwords.js';

/**
 * `PUT /recipe/user` `{recipeUserId, email?, password?}`: an email/password user's new email
 * and/or password. The reference routes `rid: passwordless` to the passwordless recipe's update,
 * which this core does not serve: it refuses it (400) rather than answer for the wrong recipe.
 */
export const handler = httpHandler({
  route: { id: 'recipe-user-put', scope: 'app', exists: 'after-input' },
  input: ({ body = {}, cdiVersion, headers }) => {
    if (headers.rid === 'passwordless') {
      throw new BadRequestError(
        'Updating a passwordless user (PUT /recipe/user with rid passwordless) is not supported',
      );
    }
    return parseUpdateUserBody(body, cdiAtLeast(cdiVersion, '4.0'));
  },
  run: async (input, { appId, config }) =>
    ok(await updateEmailOrPassword(accountsDeps(config), passwordPorts(config), appId, input)),
});
