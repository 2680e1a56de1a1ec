import { verifyCodeRequest } from '#functions/domain/totp/requests.js';
import { verifyCode } from '#functions/domain/totp/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { totpDeps } from '#functions/wiring/totp.js';

/** `POST /<t>/recipe/totp/verify`: a code against the user's verified devices (rate limited). */
export const handler = httpHandler({
  route: { id: 'totp-verify', scope: 'tenant', exists: 'after-input' },
  request: { body: verifyCodeRequest },
  run: async (input, { appId, tenantId, cdiVersion, config }) =>
    ok(await verifyCode(totpDeps(config, appId), { tenantId, cdiVersion }, input)),
});
