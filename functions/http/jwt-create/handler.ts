import { readCreateJwt } from '#functions/domain/sessions/input.js';
import { createJwt } from '#functions/domain/sessions/jwt.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/** `POST /recipe/jwt`: a JWT signed with the app's static key (or its current dynamic key). */
export const handler = httpHandler({
  route: { id: 'jwt-create', scope: 'app', exists: 'after-input' },
  input: ({ body = {}, cdiVersion }) => readCreateJwt(body, cdiVersion),
  run: async (input, { appId, config }) => ok(await createJwt(sessionDeps(config), appId, input)),
});
