import { verifyDeviceRequest } from '#functions/domain/totp/requests.js';
import { verifyDevice } from '#functions/domain/totp/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { totpDeps } from '#functions/wiring/totp.js';

/** `POST /<t>/recipe/totp/device/verify`: a device's first code marks it verified (rate limited). */
export const handler = httpHandler({
  route: { id: 'totp-device-verify', scope: 'tenant', exists: 'after-input' },
  request: { body: verifyDeviceRequest },
  run: async (input, { appId, tenantId, cdiVersion, config }) =>
    ok(await verifyDevice(totpDeps(config, appId), { tenantId, cdiVersion }, input)),
});
