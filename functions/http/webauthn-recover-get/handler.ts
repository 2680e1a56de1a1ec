import { userOfRecoverAccountToken } from '#functions/domain/webauthn/recovery.js';
import { tokenQuery } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/** `GET /<t>/recipe/webauthn/user/recover?token=`: the user of an account-recovery token, or `RECOVER_ACCOUNT_TOKEN_INVALID_ERROR`. */
export const handler = httpHandler({
  route: { id: 'webauthn-recover-get', scope: 'tenant', exists: 'after-input' },
  request: { query: tokenQuery },
  run: async ({ token }, { appId, tenantId, config }) =>
    ok(await userOfRecoverAccountToken(webauthnDeps(config, appId), { tenantId }, token)),
});
