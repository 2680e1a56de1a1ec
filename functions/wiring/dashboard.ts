/**
 * Wiring of the user-management dashboard's use cases (docs/dashboard.md): the dashboard store of
 * the request's app, and, for the routes that hash or verify a dashboard user's password, the
 * app's password hashing (functions/wiring/passwords.ts).
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { DashboardDeps } from '#functions/domain/dashboard/service.js';
import { dashboardStoreOf } from './stores.js';
import { appTable } from './tables.js';

export const dashboardDeps = (config: EffectiveConfig): DashboardDeps => ({
  store: dashboardStoreOf(appTable(config)),
});
