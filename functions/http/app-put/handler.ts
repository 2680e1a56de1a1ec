import { createOrUpdateApp } from '#functions/domain/multitenancy/apps.js';
import { parseAppPut } from '#functions/domain/multitenancy/input.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { multitenancyDeps } from '#functions/wiring/multitenancy.js';

/** `PUT /recipe/multitenancy/app` (docs/reference-behaviour.md "The legacy app input"): creates or updates an app. */
export const handler = httpHandler({
  route: { id: 'app-put', scope: 'tenant', exists: 'after-input' },
  input: (request) => parseAppPut(request.body ?? {}, callerOf(request), 'legacy'),
  run: async (input, request) => ok(await createOrUpdateApp(multitenancyDeps, callerOf(request), input, 'legacy')),
});
