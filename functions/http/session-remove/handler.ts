import { readRevoke } from '#functions/domain/sessions/input.js';
import { revokeSessions } from '#functions/domain/sessions/revoke.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/** `POST /<t>/recipe/session/remove`: revokes a user's sessions or the given handles. */
export const handler = httpHandler({
  route: { id: 'session-remove', scope: 'tenant', exists: 'after-input' },
  input: ({ body = {} }) => {
    const input = readRevoke(body);
    if ('userId' in input) checkIdLength('userId', input.userId);
    return input;
  },
  run: async (input, { appId, tenantId, config }) =>
    ok(await revokeSessions(sessionDeps(config), { appId, tenantId }, input)),
});
