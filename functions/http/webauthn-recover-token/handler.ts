import { createRecoverAccountToken } from '#functions/domain/webauthn/recovery.js';
import { recoverTokenRequest } from '#functions/domain/webauthn/requests.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { webauthnDeps } from '#functions/wiring/webauthn.js';

/** `POST /<t>/recipe/webauthn/user/recover/token` `{email, userId}`: an account-recovery token, or `UNKNOWN_USER_ID_ERROR`. */
export const handler = httpHandler({
  route: { id: 'webauthn-recover-token', scope: 'tenant', exists: 'after-input' },
  request: { body: recoverTokenRequest },
  run: async (input, { appId, tenantId, config }) =>
    ok(await createRecoverAccountToken(webauthnDeps(config, appId), { tenantId }, input)),
});
