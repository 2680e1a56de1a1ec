import { registerOptions } from '#functions/domain/webauthn/options.js';
import { registerOptionsRequest } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/**
 * `POST /<t>/recipe/webauthn/options/register` `{email, relyingPartyId, relyingPartyName, origin, …}`:
 * options for `navigator.credentials.create()`, or `INVALID_OPTIONS_ERROR` with the reason.
 */
export const handler = httpHandler({
  route: { id: 'webauthn-options-register', scope: 'tenant' },
  request: { body: registerOptionsRequest },
  run: async (input, { appId, tenantId, config }) =>
    ok(await registerOptions(webauthnDeps(config, appId), { tenantId }, input)),
});
