import { signUpRequest } from '#functions/domain/users/input.js';
import { signUp } from '#functions/domain/users/sign-up.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { passwordPorts } from '#functions/wiring/passwords.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `POST /<t>/recipe/signup`: `OK` with user and recipeUserId, or `EMAIL_ALREADY_EXISTS_ERROR`. */
export const handler = httpHandler({
  route: { id: 'signup', scope: 'tenant' },
  request: { body: signUpRequest },
  run: async (input, { appId, tenantId, config }) =>
    ok(await signUp(usersDeps(config), passwordPorts(config), { appId, tenantId }, input)),
});
