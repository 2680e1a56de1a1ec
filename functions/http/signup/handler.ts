import { signUp } from '#functions/domain/users/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { requiredString } from '#functions/shared/input.js';
import { passwordPorts, usersDeps } from '#functions/wiring/users.js';

/** `POST /<t>/recipe/signup`: `OK` with user and recipeUserId, or `EMAIL_ALREADY_EXISTS_ERROR`. */
export const handler = httpHandler({
  route: { id: 'signup', scope: 'tenant' },
  input: ({ body = {} }) => ({ email: requiredString(body, 'email'), password: requiredString(body, 'password') }),
  run: async (input, { appId, tenantId, config }) =>
    ok(await signUp(usersDeps(config), passwordPorts(config), { appId, tenantId }, input)),
});
