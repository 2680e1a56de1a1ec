import { clientIdQuery } from '#functions/domain/oauth-clients/input.js';
import { getClient } from '#functions/domain/oauth-clients/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { oauthClientDeps } from '#functions/wiring/oauth-clients.js';

/** `GET /recipe/oauth/clients?clientId=`: one OAuth2 client of the app, with its secret. */
export const handler = httpHandler({
  route: { id: 'oauth-client-get', scope: 'app', exists: 'after-input' },
  request: { query: clientIdQuery },
  input: (_, { query }) => query.clientId,
  run: async (clientId, { appId, config }) => ok(await getClient(oauthClientDeps(config, appId), clientId)),
});
