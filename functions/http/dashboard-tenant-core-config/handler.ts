import { dashboardCoreConfig } from '#functions/domain/dashboard/core-config.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';

/** `GET /<t>/recipe/dashboard/tenant/core-config`: the tenant's configuration keys as the dashboard shows them. */
export const handler = httpHandler({
  route: { id: 'dashboard-tenant-core-config', scope: 'tenant' },
  run: (_, { config }) => ok(dashboardCoreConfig(config)),
});
