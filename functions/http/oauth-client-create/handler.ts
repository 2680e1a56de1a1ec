import { createClient, parseCreateClient } from '#functions/domain/oauth-clients/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { oauthClientDeps } from '#functions/wiring/oauth-clients.js';

/** `POST /recipe/oauth/clients`: a new OAuth2 client of the app (id and secret generated unless given). */
export const handler = httpHandler({
  route: { id: 'oauth-client-create', scope: 'app', exists: 'after-input' },
  input: ({ body = {} }) => parseCreateClient(body),
  run: async (input, { appId, config }) => ok(await createClient(oauthClientDeps(config, appId), input)),
});
