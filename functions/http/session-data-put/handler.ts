import { updateSession } from '#functions/domain/sessions/data.js';
import { readSessionData } from '#functions/domain/sessions/input.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/** `PUT /recipe/session/data`: replaces a session's data. */
export const handler = httpHandler({
  route: { id: 'session-data-put', scope: 'app', exists: 'after-input' },
  input: ({ body = {} }) => readSessionData(body),
  run: async (input, { appId, config }) => ok(await updateSession(sessionDeps(config), appId, input)),
});
