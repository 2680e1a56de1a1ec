import { signUp } from '#functions/domain/users/service.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { requiredString } from '#functions/shared/input.js';
import { passwordPorts, usersDeps } from '#functions/storage/user-deps.js';

/** `POST /<t>/recipe/signup`: `OK` with user and recipeUserId, or `EMAIL_ALREADY_EXISTS_ERROR`. */
export const handler = httpHandler({
  routeId: 'signup',
  scope: 'tenant',
  run: async ({ appId, tenantId, body = {}, config }) => {
    const input = { email: requiredString(body, 'email'), password: requiredString(body, 'password') };
    return ok(await signUp(usersDeps, passwordPorts(config), { appId, tenantId }, input));
  },
});
