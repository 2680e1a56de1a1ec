import { readRefresh } from '#functions/domain/sessions/input.js';
import { refreshSession } from '#functions/domain/sessions/refresh.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/** `POST /recipe/session/refresh`: new tokens for a refresh token; `TOKEN_THEFT_DETECTED` for a rotated-out one. */
export const handler = httpHandler({
  route: { id: 'session-refresh', scope: 'app', exists: 'after-input' },
  input: ({ body = {}, cdiVersion }) => readRefresh(body, cdiVersion),
  run: async (input, { appId, config }) => ok(await refreshSession(sessionDeps(config), appId, input)),
});
