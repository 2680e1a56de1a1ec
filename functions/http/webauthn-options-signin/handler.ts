import { signInOptions } from '#functions/domain/webauthn/options.js';
import { signInOptionsRequest } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/**
 * `POST /<t>/recipe/webauthn/options/signin` `{relyingPartyId, relyingPartyName, origin, …}`: options
 * for `navigator.credentials.get()`, or `INVALID_OPTIONS_ERROR` with the reason.
 */
export const handler = httpHandler({
  route: { id: 'webauthn-options-signin', scope: 'tenant' },
  request: { body: signInOptionsRequest },
  run: async (input, { appId, tenantId, config }) =>
    ok(await signInOptions(webauthnDeps(config, appId), { tenantId }, input)),
});
