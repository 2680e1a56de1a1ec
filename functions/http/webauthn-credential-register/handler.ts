import { registerCredential } from '#functions/domain/webauthn/credential-register.js';
import { registerCredentialRequest } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/**
 * `POST /recipe/webauthn/user/credential/register` `{recipeUserId, webauthnGeneratedOptionsId, credential}`:
 * a further passkey for a webauthn login method.
 */
export const handler = httpHandler({
  route: { id: 'webauthn-credential-register', scope: 'tenant' },
  request: { body: registerCredentialRequest },
  run: async (input, { appId, config }) => ok(await registerCredential(webauthnDeps(config, appId), input)),
});
