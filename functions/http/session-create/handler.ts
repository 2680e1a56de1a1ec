import { createSession } from '#functions/domain/sessions/create.js';
import { readCreateSession } from '#functions/domain/sessions/input.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { sessionDeps } from '#functions/wiring/sessions.js';

/** `POST /<t>/recipe/session`: a new session with its access, refresh and anti-CSRF tokens. */
export const handler = httpHandler({
  route: { id: 'session-create', scope: 'tenant', exists: 'after-input' },
  input: ({ body = {}, cdiVersion, config }) => {
    const input = readCreateSession(body, cdiVersion, config.sessions.signingKeyDynamic);
    checkIdLength('userId', input.userId);
    return input;
  },
  run: async (input, { appId, tenantId, config }) =>
    ok(await createSession(sessionDeps(config), { appId, tenantId }, input)),
});
