import { createDeviceRequest } from '#functions/domain/totp/requests.js';
import { createDevice } from '#functions/domain/totp/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { totpDeps } from '#functions/wiring/totp.js';

/** `POST /recipe/totp/device`: a new unverified device; its secret is in this answer only. */
export const handler = httpHandler({
  route: { id: 'totp-device-create', scope: 'app', exists: 'after-input' },
  request: { body: createDeviceRequest },
  run: async (input, { appId, config }) => ok(await createDevice(totpDeps(config, appId), input)),
});
