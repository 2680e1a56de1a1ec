import { removeThirdPartyConfig } from '#functions/domain/multitenancy/service.js';
import { bodyOf, callerOf, multitenancyDeps } from '#functions/http/multitenancy-deps.js';
import { httpHandler, ok } from '#functions/shared/http.js';

export const handler = httpHandler({
  routeId: 'thirdparty-config-remove',
  scope: 'tenant',
  existence: 'lazy',
  run: async (request) => ok(await removeThirdPartyConfig(multitenancyDeps, callerOf(request), bodyOf(request))),
});
