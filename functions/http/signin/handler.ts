import { signInRequest } from '#functions/domain/users/input.js';
import { signIn } from '#functions/domain/users/sign-in.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { passwordVerifier } from '#functions/wiring/password-hook.js';
import { passwordPorts } from '#functions/wiring/passwords.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `POST /<t>/recipe/signin`: `OK` with user and recipeUserId, or `WRONG_CREDENTIALS_ERROR`. */
export const handler = httpHandler({
  route: { id: 'signin', scope: 'tenant' },
  request: { body: signInRequest },
  run: async (input, { appId, tenantId, config }) => {
    const deps = usersDeps(config);
    const passwords = passwordPorts(config);
    const verifier = passwordVerifier(config, appId, deps, passwords);
    return ok(await signIn(deps, passwords, { appId, tenantId }, input, verifier));
  },
});
