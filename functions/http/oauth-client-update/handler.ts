import { parseUpdateClient, updateClient } from '#functions/domain/oauth-clients/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { oauthClientDeps } from '#functions/wiring/oauth-clients.js';

/** `PUT /recipe/oauth/clients`: changes the fields of an OAuth2 client the body sets. */
export const handler = httpHandler({
  route: { id: 'oauth-client-update', scope: 'app', exists: 'after-input' },
  input: ({ body = {} }) => parseUpdateClient(body),
  run: async (input, { appId, config }) => ok(await updateClient(oauthClientDeps(config, appId), input)),
});
