import { verifyEmail } from '#functions/domain/accounts/email-verification.js';
import { verifyEmailRequest } from '#functions/domain/accounts/inputs.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { accountsDeps } from '#functions/wiring/accounts.js';

/** `POST /<t>/recipe/user/email/verify` `{method:"token", token}`: `OK` with userId and email, or `EMAIL_VERIFICATION_INVALID_TOKEN_ERROR`. */
export const handler = httpHandler({
  route: { id: 'email-verify', scope: 'tenant', exists: 'after-input' },
  request: { body: verifyEmailRequest },
  run: async (token, { appId, tenantId, config }) =>
    ok(await verifyEmail(accountsDeps(config, appId), { tenantId }, token)),
});
