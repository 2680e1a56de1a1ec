import { renameDeviceRequest } from '#functions/domain/totp/requests.js';
import { renameDevice } from '#functions/domain/totp/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { totpStore } from '#functions/wiring/app-data.js';

/** `PUT /recipe/totp/device`: renames a device (its secret is not opened). */
export const handler = httpHandler({
  route: { id: 'totp-device-rename', scope: 'app', exists: 'after-input' },
  request: { body: renameDeviceRequest },
  run: async (input, { appId, config }) => ok(await renameDevice(totpStore(config, appId), input)),
});
