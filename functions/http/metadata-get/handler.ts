import { getUserMetadata, parseMetadataQuery } from '#functions/domain/metadata/service.js';
import { httpHandler, ok, requireTenant } from '#functions/shared/http.js';
import { metadataStore } from '#functions/storage/metadata-store.js';

/** `GET /recipe/user/metadata?userId=`: the metadata of a user id (`{}` when none). */
export const handler = httpHandler({
  routeId: 'metadata-get',
  scope: 'app',
  // The reference validates the request before it looks the app up.
  existence: 'lazy',
  run: async (request) => {
    const input = parseMetadataQuery(request.query);
    requireTenant(request);
    return ok(await getUserMetadata(metadataStore, request.appId, input));
  },
});
