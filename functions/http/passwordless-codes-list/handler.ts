import { listCodes } from '#functions/domain/passwordless/codes.js';
import { parseListCodes } from '#functions/domain/passwordless/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { passwordlessDeps } from '#functions/wiring/passwordless.js';

/** `GET /<t>/recipe/signinup/codes?email= | phoneNumber= | deviceId= | preAuthSessionId=`: the devices and their codes. */
export const handler = httpHandler({
  route: { id: 'passwordless-codes-list', scope: 'tenant', exists: 'after-input' },
  input: ({ query }) => parseListCodes(query),
  run: async (input, { appId, tenantId, config }) =>
    ok(await listCodes(passwordlessDeps(config), { appId, tenantId }, input)),
});
