import { removeCode } from '#functions/domain/passwordless/codes.js';
import { parseRemoveCode } from '#functions/domain/passwordless/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { passwordlessDeps } from '#functions/wiring/passwordless.js';

/** `POST /<t>/recipe/signinup/code/remove` `{codeId | preAuthSessionId}` → `{status:"OK"}`. */
export const handler = httpHandler({
  route: { id: 'passwordless-code-remove', scope: 'tenant', exists: 'after-input' },
  input: ({ body = {}, cdiVersion }) => parseRemoveCode(body, cdiAtLeast(cdiVersion, '5.0')),
  run: async (input, { appId, tenantId, config }) =>
    ok(await removeCode(passwordlessDeps(config), { appId, tenantId }, input)),
});
