import { createCode } from '#functions/domain/passwordless/code-create.js';
import { parseCreateCode } from '#functions/domain/passwordless/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { passwordlessDeps } from '#functions/wiring/passwordless.js';

/**
 * `POST /<t>/recipe/signinup/code` `{email | phoneNumber | deviceId, userInputCode?}`: a new device
 * and code (or a new code for a device), `RESTART_FLOW_ERROR`, `USER_INPUT_CODE_ALREADY_USED_ERROR`.
 */
export const handler = httpHandler({
  route: { id: 'passwordless-code-create', scope: 'tenant', exists: 'after-input' },
  input: ({ body = {} }) => parseCreateCode(body),
  run: async (input, { appId, tenantId, tenant, cdiVersion, config }) =>
    ok(await createCode(passwordlessDeps(config), { appId, tenantId, tenant, cdiVersion }, input)),
});
