import { listClients, parseListClients } from '#functions/domain/oauth-clients/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { oauthClientDeps } from '#functions/wiring/oauth-clients.js';

/** `GET /recipe/oauth/clients/list?pageSize=&pageToken=&clientName=`: a page of the app's OAuth2 clients. */
export const handler = httpHandler({
  route: { id: 'oauth-clients-list', scope: 'app' },
  input: ({ query }) => parseListClients(query),
  run: async (input, { appId, config }) => ok(await listClients(oauthClientDeps(config, appId), input)),
});
