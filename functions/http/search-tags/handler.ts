import { SEARCH_TAGS } from '#functions/domain/dashboard/search-and-telemetry.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';

/** `GET /user/search/tags`: the fields `GET /<t>/users` can filter on, for the dashboard's search. */
export const handler = httpHandler({
  route: { id: 'search-tags', scope: 'tenant' },
  run: () => ok({ status: 'OK', tags: SEARCH_TAGS }),
});
