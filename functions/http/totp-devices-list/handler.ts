import { listDevices, parseListDevices } from '#functions/domain/totp/service.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { totpStore } from '#functions/storage/totp-store.js';

/** `GET /recipe/totp/device/list?userId=`: the devices of a user id, without secrets. */
export const handler = httpHandler({
  routeId: 'totp-devices-list',
  scope: 'app',
  // The reference validates the request before it looks the app up.
  existence: 'lazy',
  run: async (request) => {
    const input = parseListDevices(request.query);
    requireTenant(request);
    return ok(await listDevices(totpStore, request.appId, input));
  },
});
