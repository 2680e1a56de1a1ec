/**
 * The dashboard routes that hash or verify a dashboard user's password (sign-in, creating and
 * changing a user) take the app's password hashing with the store; the other dashboard routes
 * import functions/wiring/dashboard.ts only, and carry no hashing library.
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { DashboardPasswordDeps } from '#functions/domain/dashboard/service.js';
import { dashboardDeps } from './dashboard.js';
import { passwordPorts } from './passwords.js';

export const dashboardPasswordDeps = (config: EffectiveConfig): DashboardPasswordDeps => ({
  ...dashboardDeps(config),
  passwords: passwordPorts(config),
});
