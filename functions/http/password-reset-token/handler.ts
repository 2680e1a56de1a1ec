import { resetTokenRequest } from '#functions/domain/accounts/inputs.js';
import { createPasswordResetToken } from '#functions/domain/accounts/password-reset.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { accountsDeps } from '#functions/wiring/accounts.js';

/** `POST /<t>/recipe/user/password/reset/token` `{userId, email}`: `OK` with the token, or `UNKNOWN_USER_ID_ERROR`. */
export const handler = httpHandler({
  route: { id: 'password-reset-token', scope: 'tenant', exists: 'after-input' },
  request: { body: resetTokenRequest },
  input: ({ cdiVersion }, { body }) => ({ ...body, legacy: !cdiAtLeast(cdiVersion, '4.0') }),
  run: async (input, { appId, config }) => ok(await createPasswordResetToken(accountsDeps(config, appId), input)),
});
