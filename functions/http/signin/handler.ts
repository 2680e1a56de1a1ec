import { signIn } from '#functions/domain/users/service.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { requiredString } from '#functions/shared/input.js';
import { passwordPorts, usersDeps } from '#functions/storage/user-deps.js';

/** `POST /<t>/recipe/signin`: `OK` with user and recipeUserId, or `WRONG_CREDENTIALS_ERROR`. */
export const handler = httpHandler({
  routeId: 'signin',
  scope: 'tenant',
  run: async ({ appId, tenantId, body = {}, config }) => {
    const input = { email: requiredString(body, 'email'), password: requiredString(body, 'password') };
    return ok(await signIn(usersDeps, passwordPorts(config), { appId, tenantId }, input));
  },
});
