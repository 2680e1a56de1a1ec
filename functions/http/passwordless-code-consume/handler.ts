import { parseCodeInput } from '#functions/domain/passwordless/requests.js';
import { consumeCode } from '#functions/domain/passwordless/sign-in-up.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { passwordlessDeps } from '#functions/wiring/passwordless.js';
import { usersDeps } from '#functions/wiring/users.js';

/**
 * `POST /<t>/recipe/signinup/code/consume` `{preAuthSessionId, deviceId + userInputCode | linkCode}`:
 * `OK` with the signed-in or new user, or the code's error (`INCORRECT_…`, `EXPIRED_…`, `RESTART_FLOW_ERROR`).
 */
export const handler = httpHandler({
  route: { id: 'passwordless-code-consume', scope: 'tenant', exists: 'after-input' },
  input: ({ body = {} }) => parseCodeInput(body),
  run: async (input, { appId, tenantId, tenant, cdiVersion, config }) =>
    ok(await consumeCode(passwordlessDeps(config), usersDeps(config), { appId, tenantId, tenant, cdiVersion }, input)),
});
