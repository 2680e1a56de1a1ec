import { TELEMETRY_OFF } from '#functions/domain/dashboard/search-and-telemetry.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';

/** `GET /telemetry`: `{"exists":false}`, this core sends no telemetry (no `status` key, as in the reference). */
export const handler = httpHandler({
  route: { id: 'telemetry', scope: 'app' },
  run: () => ok(TELEMETRY_OFF),
});
