import { removeClientRequest } from '#functions/domain/oauth-clients/input.js';
import { removeClient } from '#functions/domain/oauth-clients/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { oauthClientDeps } from '#functions/wiring/oauth-clients.js';

/** `POST /recipe/oauth/clients/remove` `{clientId}`: deletes an OAuth2 client of the app. */
export const handler = httpHandler({
  route: { id: 'oauth-client-remove', scope: 'app', exists: 'after-input' },
  request: { body: removeClientRequest },
  input: (_, { body }) => body.clientId,
  run: async (clientId, { appId, config }) => ok(await removeClient(oauthClientDeps(config, appId), clientId)),
});
