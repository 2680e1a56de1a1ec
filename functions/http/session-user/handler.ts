import { readSessionUser } from '#functions/domain/sessions/input.js';
import { sessionHandlesOfUser } from '#functions/domain/sessions/revoke.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/** `GET /<t>/recipe/session/user?userId=`: handles of a user's live sessions (this tenant or all, linked accounts too). */
export const handler = httpHandler({
  route: { id: 'session-user', scope: 'tenant', exists: 'after-input' },
  input: ({ query }) => {
    const input = readSessionUser(query);
    checkIdLength('userId', input.userId);
    return input;
  },
  run: async (input, { appId, tenantId, config }) =>
    ok(await sessionHandlesOfUser(sessionDeps(config), { appId, tenantId }, input)),
});
