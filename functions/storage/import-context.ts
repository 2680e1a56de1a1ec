import type { EffectiveConfig } from '#functions/config/index.js';
import type { ImportValidationContext } from '#functions/domain/bulk-import/validate-user.js';
import { listRoleNames } from './role-store.js';
import { listTenants } from './tenant-store.js';

/**
 * What validating an import user needs to know about its app, read now: its roles, tenants and
 * switches. Used by the single-user import, the staging endpoint and the worker's re-validation.
 */
export async function importValidationContext(
  appId: string,
  config: EffectiveConfig,
): Promise<Omit<ImportValidationContext, 'now' | 'newId'>> {
  const [roles, tenants] = await Promise.all([listRoleNames(appId), listTenants(appId)]);
  const roleSet = new Set(roles);
  const tenantSet = new Set(tenants.map((t) => t.tenantId));
  return {
    roleExists: (role) => roleSet.has(role),
    tenantExists: (tenantId) => tenantSet.has(tenantId),
    features: { accountLinking: config.accountLinkingEnabled, mfa: config.mfaEnabled },
    firebaseSignerKeyConfigured: config.firebaseSignerKey !== undefined && config.firebaseSignerKey.trim() !== '',
  };
}
