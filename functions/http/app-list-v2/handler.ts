import { listApps } from '#functions/domain/multitenancy/apps.js';
import { callerOf } from '#functions/http/caller.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { multitenancyDeps } from '#functions/wiring/multitenancy.js';

/** `GET /recipe/multitenancy/app/list/v2` (docs/reference-behaviour.md "Listing apps"): only from the public app and tenant. */
export const handler = httpHandler({
  route: { id: 'app-list-v2', scope: 'tenant' },
  run: async (_, request) => ok(await listApps(multitenancyDeps, callerOf(request), 'v2')),
});
