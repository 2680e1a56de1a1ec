import { tokenRequest } from '#functions/domain/accounts/inputs.js';
import { consumePasswordResetToken } from '#functions/domain/accounts/password-reset.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { accountsDeps } from '#functions/wiring/accounts.js';

/** `POST /<t>/recipe/user/password/reset/token/consume` `{token}`: `OK` with userId and email, or `RESET_PASSWORD_INVALID_TOKEN_ERROR`. */
export const handler = httpHandler({
  route: { id: 'password-reset-token-consume', scope: 'tenant', exists: 'after-input' },
  request: { body: tokenRequest },
  input: (_, { body }) => body.token,
  run: async (token, { appId, config }) => ok(await consumePasswordResetToken(accountsDeps(config, appId), token)),
});
