import { checkCode } from '#functions/domain/passwordless/code-check.js';
import { parseCodeInput } from '#functions/domain/passwordless/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { passwordlessDeps } from '#functions/wiring/passwordless.js';

/** `POST /<t>/recipe/signinup/code/check`: `OK` with the device, or the code's error; the code stays. */
export const handler = httpHandler({
  route: { id: 'passwordless-code-check', scope: 'tenant', exists: 'after-input' },
  input: ({ body = {} }) => parseCodeInput(body),
  run: async (input, { appId, tenantId, tenant, cdiVersion, config }) =>
    ok(await checkCode(passwordlessDeps(config), { appId, tenantId, tenant, cdiVersion }, input)),
});
