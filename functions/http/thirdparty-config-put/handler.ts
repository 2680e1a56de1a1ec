import { parseThirdPartyPut } from '#functions/domain/multitenancy/input.js';
import { upsertThirdPartyConfig } from '#functions/domain/multitenancy/providers.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { multitenancyDeps } from '#functions/wiring/multitenancy.js';

/** `PUT /<t>/recipe/multitenancy/config/thirdparty` (docs/reference-behaviour.md "Third-party provider configuration"): replaces or appends one provider. */
export const handler = httpHandler({
  route: { id: 'thirdparty-config-put', scope: 'tenant', exists: 'after-input' },
  input: (request) => parseThirdPartyPut(request.body ?? {}),
  run: async (input, request) => ok(await upsertThirdPartyConfig(multitenancyDeps, callerOf(request), input)),
});
