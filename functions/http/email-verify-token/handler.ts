import { createEmailVerificationToken } from '#functions/domain/accounts/email-verification.js';
import { userEmailRequest } from '#functions/domain/accounts/inputs.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { accountsDeps } from '#functions/wiring/accounts.js';

/** `POST /<t>/recipe/user/email/verify/token` `{userId, email}`: `OK` with the token, or `EMAIL_ALREADY_VERIFIED_ERROR`. */
export const handler = httpHandler({
  route: { id: 'email-verify-token', scope: 'tenant', exists: 'after-input' },
  request: { body: userEmailRequest },
  run: async (input, { appId, tenantId, config }) =>
    ok(await createEmailVerificationToken(accountsDeps(config, appId), { tenantId }, input)),
});
