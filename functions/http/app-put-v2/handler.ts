import { createOrUpdateApp } from '#functions/domain/multitenancy/apps.js';
import { parseAppPut } from '#functions/domain/multitenancy/input.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { multitenancyDeps } from '#functions/wiring/multitenancy.js';

/** `PUT /recipe/multitenancy/app/v2` (docs/reference-behaviour.md "Creating or updating an app"): creates or updates an app. */
export const handler = httpHandler({
  route: { id: 'app-put-v2', scope: 'tenant', exists: 'after-input' },
  input: (request) => parseAppPut(request.body ?? {}, callerOf(request), 'v2'),
  run: async (input, request) => ok(await createOrUpdateApp(multitenancyDeps, callerOf(request), input, 'v2')),
});
