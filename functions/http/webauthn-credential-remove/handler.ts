import { removeCredential } from '#functions/domain/webauthn/credentials.js';
import { credentialQuery } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/** `DELETE /recipe/webauthn/user/credential/remove?recipeUserId=&webauthnCredentialId=`: `OK`, or `CREDENTIAL_NOT_FOUND_ERROR`. */
export const handler = httpHandler({
  route: { id: 'webauthn-credential-remove', scope: 'tenant' },
  request: { query: credentialQuery },
  run: async (input, { appId, config }) => ok(await removeCredential(webauthnDeps(config, appId), input)),
});
