import { removeDeviceRequest } from '#functions/domain/totp/requests.js';
import { removeDevice } from '#functions/domain/totp/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { totpStore } from '#functions/wiring/app-data.js';

/** `POST /recipe/totp/device/remove`: `{status:"OK", didDeviceExist}`. */
export const handler = httpHandler({
  route: { id: 'totp-device-remove', scope: 'app', exists: 'after-input' },
  request: { body: removeDeviceRequest },
  run: async (input, { appId, config }) => ok(await removeDevice(totpStore(config, appId), input)),
});
