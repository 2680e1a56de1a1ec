import { updateExternalUserIdInfo } from '#functions/domain/users/id-mapping.js';
import { updateMappingInfoRequest } from '#functions/domain/users/input.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/**
 * `PUT /recipe/userid/external-user-id-info` `{userId, userIdType?, externalUserIdInfo}` (a string,
 * or null to remove it) → `{status:"OK"}` or `UNKNOWN_MAPPING_ERROR`.
 */
export const handler = httpHandler({
  route: { id: 'userid-external-info-put', scope: 'app', exists: 'after-input' },
  request: { body: updateMappingInfoRequest },
  run: async (input, { appId, config }) => ok(await updateExternalUserIdInfo(usersDeps(config), appId, input)),
});
