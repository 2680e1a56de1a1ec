import { jwks } from '#functions/domain/sessions/jwt.js';
import { httpHandler } from '#functions/http/pipeline.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/**
 * `GET /.well-known/jwks.json`: the app's public keys. The SDK fetches it with no API key and no
 * `cdi-version` header; `{keys}` without a status, cacheable until the next key is due.
 */
export const handler = httpHandler({
  route: { id: 'jwks-public', scope: 'app', noApiKey: true, skipCdiCheck: true },
  run: async (_, { appId, config }) => {
    const { keys, cacheSeconds } = await jwks(sessionDeps(config), appId);
    return {
      statusCode: 200,
      json: { keys },
      headers: { 'cache-control': `max-age=${cacheSeconds}, must-revalidate` },
    };
  },
});
