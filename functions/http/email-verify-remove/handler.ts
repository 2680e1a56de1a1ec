import { unverifyEmail } from '#functions/domain/accounts/email-verification.js';
import { userEmailRequest } from '#functions/domain/accounts/inputs.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { accountsDeps } from '#functions/wiring/accounts.js';

/** `POST /recipe/user/email/verify/remove` `{userId, email}`: (id, email) is no longer verified. */
export const handler = httpHandler({
  route: { id: 'email-verify-remove', scope: 'app', exists: 'after-input' },
  request: { body: userEmailRequest },
  run: async (input, { appId, config }) => ok(await unverifyEmail(accountsDeps(config, appId), input)),
});
