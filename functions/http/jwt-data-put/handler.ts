import { updateSession } from '#functions/domain/sessions/data.js';
import { readJwtData } from '#functions/domain/sessions/input.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/** `PUT /recipe/jwt/data`: replaces the access-token payload the session's next tokens carry. */
export const handler = httpHandler({
  route: { id: 'jwt-data-put', scope: 'app', exists: 'after-input' },
  input: ({ body = {}, cdiVersion }) => readJwtData(body, cdiVersion),
  run: async (input, { appId, config }) => ok(await updateSession(sessionDeps(config), appId, input)),
});
