import { consumeRecoverAccountToken } from '#functions/domain/webauthn/recovery.js';
import { tokenRequest } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/** `POST /<t>/recipe/webauthn/user/recover/token/consume` `{token}`: `{userId, email}`, or `RECOVER_ACCOUNT_TOKEN_INVALID_ERROR`. */
export const handler = httpHandler({
  route: { id: 'webauthn-recover-token-consume', scope: 'tenant' },
  request: { body: tokenRequest },
  run: async ({ token }, { appId, tenantId, config }) =>
    ok(await consumeRecoverAccountToken(webauthnDeps(config, appId), { tenantId }, token)),
});
