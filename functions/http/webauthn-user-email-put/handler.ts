import { updateWebauthnEmail } from '#functions/domain/webauthn/email-update.js';
import { emailUpdateRequest } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/** `PUT /<t>/recipe/webauthn/user/email` `{recipeUserId, email}`: the email of a webauthn login method. */
export const handler = httpHandler({
  route: { id: 'webauthn-user-email-put', scope: 'tenant' },
  request: { body: emailUpdateRequest },
  run: async (input, { appId, config }) => ok(await updateWebauthnEmail(webauthnDeps(config, appId), input)),
});
