import { removeOptions } from '#functions/domain/webauthn/options.js';
import { optionsIdQuery } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/** `DELETE /<t>/recipe/webauthn/options/remove?webauthnGeneratedOptionsId=`: `OK`, or `OPTIONS_NOT_FOUND_ERROR`. */
export const handler = httpHandler({
  route: { id: 'webauthn-options-remove', scope: 'tenant' },
  request: { query: optionsIdQuery },
  run: async ({ optionsId }, { appId, tenantId, config }) =>
    ok(await removeOptions(webauthnDeps(config, appId), { tenantId }, optionsId)),
});
