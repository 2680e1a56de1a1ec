import { parseRemoveMetadata, removeUserMetadata } from '#functions/domain/metadata/service.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { metadataStore } from '#functions/storage/metadata-store.js';

/** `POST /recipe/user/metadata/remove`: deletes the metadata of a user id. */
export const handler = httpHandler({
  routeId: 'metadata-remove',
  scope: 'app',
  // The reference validates the request before it looks the app up.
  existence: 'lazy',
  run: async (request) => {
    const input = parseRemoveMetadata(request.body ?? {});
    requireTenant(request);
    return ok(await removeUserMetadata(metadataStore, request.appId, input));
  },
});
