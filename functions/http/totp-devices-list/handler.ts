import { listDevicesQuery } from '#functions/domain/totp/requests.js';
import { listDevices } from '#functions/domain/totp/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { totpStore } from '#functions/wiring/app-data.js';

/** `GET /recipe/totp/device/list?userId=`: the devices of a user id, without secrets. */
export const handler = httpHandler({
  route: { id: 'totp-devices-list', scope: 'app', exists: 'after-input' },
  request: { query: listDevicesQuery },
  run: async (input, request) => ok(await listDevices(totpStore(request.config, request.appId), input)),
});
