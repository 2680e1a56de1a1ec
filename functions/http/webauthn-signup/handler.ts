import { credentialRequest } from '#functions/domain/webauthn/requests.js';
import { signUp } from '#functions/domain/webauthn/sign-in-up.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/**
 * `POST /<t>/recipe/webauthn/signup` `{webauthnGeneratedOptionsId, credential}`: a new webauthn user
 * with its first passkey, or the reference's error status (docs/passkeys.md "Statuses").
 */
export const handler = httpHandler({
  route: { id: 'webauthn-signup', scope: 'tenant' },
  request: { body: credentialRequest },
  run: async (input, { appId, tenantId, config }) => ok(await signUp(webauthnDeps(config, appId), { tenantId }, input)),
});
