import { credentialRequest } from '#functions/domain/webauthn/requests.js';
import { signIn } from '#functions/domain/webauthn/sign-in-up.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/**
 * `POST /<t>/recipe/webauthn/signin` `{webauthnGeneratedOptionsId, credential}`: the user of the
 * passkey, or the reference's error status. From CDI 5.5 the options are single-use (the SDKs of
 * CDI 5.4 read them again after a sign-in, so they stay until they expire; docs/passkeys.md).
 */
export const handler = httpHandler({
  route: { id: 'webauthn-signin', scope: 'tenant' },
  request: { body: credentialRequest },
  run: async (input, { appId, cdiVersion, config }) =>
    ok(await signIn(webauthnDeps(config, appId), input, cdiAtLeast(cdiVersion, '5.5'))),
});
