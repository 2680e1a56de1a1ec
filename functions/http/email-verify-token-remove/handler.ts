import { revokeEmailVerificationTokens } from '#functions/domain/accounts/email-verification.js';
import { userEmailRequest } from '#functions/domain/accounts/inputs.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { accountsDeps } from '#functions/wiring/accounts.js';

/** `POST /<t>/recipe/user/email/verify/token/remove` `{userId, email}`: deletes the tokens of (id, email) in the tenant. */
export const handler = httpHandler({
  route: { id: 'email-verify-token-remove', scope: 'tenant', exists: 'after-input' },
  request: { body: userEmailRequest },
  run: async (input, { appId, tenantId, config }) =>
    ok(await revokeEmailVerificationTokens(accountsDeps(config, appId), { tenantId }, input)),
});
