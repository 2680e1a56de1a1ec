import { removeCodes } from '#functions/domain/passwordless/codes.js';
import { parseRemoveCodes } from '#functions/domain/passwordless/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { passwordlessDeps } from '#functions/wiring/passwordless.js';

/** `POST /<t>/recipe/signinup/codes/remove` `{email | phoneNumber}` → `{status:"OK"}`. */
export const handler = httpHandler({
  route: { id: 'passwordless-codes-remove', scope: 'tenant', exists: 'after-input' },
  input: ({ body = {} }) => parseRemoveCodes(body),
  run: async (input, { appId, tenantId, config }) =>
    ok(await removeCodes(passwordlessDeps(config), { appId, tenantId }, input)),
});
