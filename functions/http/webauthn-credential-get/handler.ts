import { getCredential } from '#functions/domain/webauthn/credentials.js';
import { credentialQuery } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/** `GET /recipe/webauthn/user/credential?recipeUserId=&webauthnCredentialId=`: one passkey, or `CREDENTIAL_NOT_FOUND_ERROR`. */
export const handler = httpHandler({
  route: { id: 'webauthn-credential-get', scope: 'tenant' },
  request: { query: credentialQuery },
  run: async (input, { appId, config }) => ok(await getCredential(webauthnDeps(config, appId), input)),
});
