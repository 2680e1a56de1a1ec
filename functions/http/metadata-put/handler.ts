import { updateMetadataRequest } from '#functions/domain/metadata/input.js';
import { updateUserMetadata } from '#functions/domain/metadata/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { metadataStore } from '#functions/wiring/app-data.js';

/** `PUT /recipe/user/metadata`: shallow-merges an update (null deletes a key). */
export const handler = httpHandler({
  route: { id: 'metadata-put', scope: 'app', exists: 'after-input' },
  request: { body: updateMetadataRequest },
  run: async (input, request) => ok(await updateUserMetadata(metadataStore(request.config, request.appId), input)),
});
