import { removeMetadataRequest } from '#functions/domain/metadata/input.js';
import { removeUserMetadata } from '#functions/domain/metadata/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { metadataStore } from '#functions/wiring/app-data.js';

/** `POST /recipe/user/metadata/remove`: deletes the metadata of a user id. */
export const handler = httpHandler({
  route: { id: 'metadata-remove', scope: 'app', exists: 'after-input' },
  request: { body: removeMetadataRequest },
  run: async (input, request) => ok(await removeUserMetadata(metadataStore(request.config, request.appId), input)),
});
