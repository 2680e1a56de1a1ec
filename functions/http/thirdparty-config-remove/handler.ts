import { parseThirdPartyRemove } from '#functions/domain/multitenancy/input.js';
import { removeThirdPartyConfig } from '#functions/domain/multitenancy/providers.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { multitenancyDeps } from '#functions/wiring/multitenancy.js';

/** `POST /<t>/recipe/multitenancy/config/thirdparty/remove` (docs/reference-behaviour.md "Third-party provider configuration"). */
export const handler = httpHandler({
  route: { id: 'thirdparty-config-remove', scope: 'tenant', exists: 'after-input' },
  input: (request) => parseThirdPartyRemove(request.body ?? {}),
  run: async (input, request) => ok(await removeThirdPartyConfig(multitenancyDeps, callerOf(request), input)),
});
