import { listCredentials } from '#functions/domain/webauthn/credentials.js';
import { recipeUserIdQuery } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/** `GET /recipe/webauthn/user/credential/list?recipeUserId=`: the passkeys of a webauthn login method. */
export const handler = httpHandler({
  route: { id: 'webauthn-credential-list', scope: 'tenant' },
  request: { query: recipeUserIdQuery },
  run: async ({ recipeUserId }, { appId, config }) =>
    ok(await listCredentials(webauthnDeps(config, appId), recipeUserId)),
});
