import { httpHandler, ok } from '#functions/http/pipeline.js';
import { versionsUpTo } from '#functions/shared/cdi.js';

/** `GET /apiversion`: every CDI version this core speaks up to the app's maximum; no `status` key. */
export const handler = httpHandler({
  route: { id: 'apiversion', scope: 'app', skipCdiCheck: true },
  run: (_, request) => ok({ versions: versionsUpTo(request.config.maxCdiVersion) }),
});
