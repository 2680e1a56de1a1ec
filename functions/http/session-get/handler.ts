import { getSessionInfo } from '#functions/domain/sessions/data.js';
import { readSessionHandleQuery } from '#functions/domain/sessions/input.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/** `GET /recipe/session?sessionHandle=`: a session's users, payload, data and expiry. */
export const handler = httpHandler({
  route: { id: 'session-get', scope: 'app', exists: 'after-input' },
  input: ({ query }) => readSessionHandleQuery(query),
  run: async (handle, { appId, config }) => ok(await getSessionInfo(sessionDeps(config), appId, handle)),
});
