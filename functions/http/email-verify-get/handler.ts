import { isEmailVerified } from '#functions/domain/accounts/email-verification.js';
import { isVerifiedQuery } from '#functions/domain/accounts/inputs.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { accountsDeps } from '#functions/wiring/accounts.js';

/** `GET /recipe/user/email/verify?userId=&email=`: `{status:"OK", isVerified}`. */
export const handler = httpHandler({
  route: { id: 'email-verify-get', scope: 'app', exists: 'after-input' },
  request: { query: isVerifiedQuery },
  run: async (input, { appId, config }) => ok(await isEmailVerified(accountsDeps(config, appId), input)),
});
