import { readVerify } from '#functions/domain/sessions/input.js';
import { verifySession } from '#functions/domain/sessions/verify.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/** `POST /recipe/session/verify`: the session of an access token; a new token when the session was refreshed. */
export const handler = httpHandler({
  route: { id: 'session-verify', scope: 'app', exists: 'after-input' },
  input: ({ body = {}, cdiVersion, config }) => readVerify(body, cdiVersion, config.sessions.accessTokenBlacklisting),
  run: async (input, { appId, config }) => ok(await verifySession(sessionDeps(config), appId, input)),
});
