import { parseUpdateMetadata, updateUserMetadata } from '#functions/domain/metadata/service.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { metadataStore } from '#functions/storage/metadata-store.js';

/** `PUT /recipe/user/metadata`: shallow-merges an update (null deletes a key). */
export const handler = httpHandler({
  routeId: 'metadata-put',
  scope: 'app',
  // The reference validates the request before it looks the app up.
  existence: 'lazy',
  run: async (request) => {
    const input = parseUpdateMetadata(request.body ?? {});
    requireTenant(request);
    return ok(await updateUserMetadata(metadataStore, request.appId, input));
  },
});
