import { readRegenerate } from '#functions/domain/sessions/input.js';
import { regenerateSession } from '#functions/domain/sessions/regenerate.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/** `POST /recipe/session/regenerate`: an access token with a new payload and the old expiry. */
export const handler = httpHandler({
  route: { id: 'session-regenerate', scope: 'app', exists: 'after-input' },
  input: ({ body = {}, cdiVersion }) => readRegenerate(body, cdiVersion),
  run: async (input, { appId, config }) => ok(await regenerateSession(sessionDeps(config), appId, input)),
});
