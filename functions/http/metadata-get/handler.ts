import { metadataQuery } from '#functions/domain/metadata/input.js';
import { getUserMetadata } from '#functions/domain/metadata/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { metadataStore } from '#functions/wiring/app-data.js';

/** `GET /recipe/user/metadata?userId=`: the metadata of a user id (`{}` when none). */
export const handler = httpHandler({
  route: { id: 'metadata-get', scope: 'app', exists: 'after-input' },
  request: { query: metadataQuery },
  run: async (input, request) => ok(await getUserMetadata(metadataStore(request.config, request.appId), input)),
});
