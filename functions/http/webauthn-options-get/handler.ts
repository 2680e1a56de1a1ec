import { getOptions } from '#functions/domain/webauthn/options.js';
import { optionsIdQuery } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/** `GET /<t>/recipe/webauthn/options?webauthnGeneratedOptionsId=`: the options made in this tenant, or `OPTIONS_NOT_FOUND_ERROR`. */
export const handler = httpHandler({
  route: { id: 'webauthn-options-get', scope: 'tenant' },
  request: { query: optionsIdQuery },
  run: async ({ optionsId }, { appId, tenantId, config }) =>
    ok(await getOptions(webauthnDeps(config, appId), { tenantId }, optionsId)),
});
