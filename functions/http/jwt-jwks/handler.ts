import { jwks } from '#functions/domain/sessions/jwt.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/** `GET /recipe/jwt/jwks`: the app's public keys with a status (API key required). */
export const handler = httpHandler({
  route: { id: 'jwt-jwks', scope: 'app' },
  run: async (_, { appId, config }) => ok({ keys: (await jwks(sessionDeps(config), appId)).keys, status: 'OK' }),
});
