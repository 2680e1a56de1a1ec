/**
 * Wiring of THE import function and of import validation: what `POST /bulk-import/import`, the
 * staging endpoint and the import worker share.
 */
import { randomUUID } from 'node:crypto';
import type { EffectiveConfig } from '#functions/config/index.js';
import type { ImportValidationContext } from '#functions/domain/bulk-import/validate-user.js';
import { type ImportDeps, stagedImportProblem } from '#functions/domain/import/import-user.js';
import { roleStoreOf, tenantStore, userStoreOf } from './stores.js';
import { appTable } from './tables.js';

/**
 * What validating an import user needs to know about its app, read now: its roles, tenants and
 * switches. Used by the single-user import, the staging endpoint and the import worker's re-validation.
 * `tenantIds`: the app's tenants when the caller has just read them (then they are not read again).
 */
export async function importValidationContext(
  appId: string,
  config: EffectiveConfig,
  tenantIds?: ReadonlySet<string>,
): Promise<ImportValidationContext> {
  const table = appTable(config);
  const [roles, tenantSet] = await Promise.all([
    roleStoreOf(table).forApp(appId).listRoleNames(),
    tenantIds ?? tenantStore.listTenants(appId).then((tenants) => new Set(tenants.map((t) => t.tenantId))),
  ]);
  const roleSet = new Set(roles);
  return {
    now: Date.now(),
    newId: randomUUID,
    roleExists: (role) => roleSet.has(role),
    tenantExists: (tenantId) => tenantSet.has(tenantId),
    features: { accountLinking: config.accountLinkingEnabled, mfa: config.mfaEnabled },
    // Only whether one is set: import validation never needs the (sealed) key itself.
    firebaseSignerKeyConfigured: config.firebaseSignerKeySet,
    passwordMigrationHookConfigured: config.passwordMigrationHook !== undefined,
    stagedImportProblem: (user) => stagedImportProblem({ store: userStoreOf(table) }, appId, user),
  };
}

/** The import function's dependencies for the app of this configuration. */
export const importDeps = (config: EffectiveConfig): ImportDeps => ({ store: userStoreOf(appTable(config)) });
