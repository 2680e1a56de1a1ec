import { removeApp } from '#functions/domain/multitenancy/apps.js';
import { parseAppRemove } from '#functions/domain/multitenancy/input.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { multitenancyDeps } from '#functions/wiring/multitenancy.js';

/** `POST /recipe/multitenancy/app/remove` (docs/reference-behaviour.md "Removing an app"): deletes the app and everything it owns. */
export const handler = httpHandler({
  route: { id: 'app-remove', scope: 'tenant', exists: 'after-input' },
  input: (request) => parseAppRemove(request.body ?? {}),
  run: async (input, request) => ok(await removeApp(multitenancyDeps, callerOf(request), input)),
});
