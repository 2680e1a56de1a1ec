/**
 * Writing a tenant record (an app is its `public` tenant): the one optimistic save every change
 * goes through, and the create-or-update of apps and tenants with the defaults of a new one.
 */
import { INVALID_CORE_CONFIG_PREFIX, mergeCoreConfig, resolveSecretUpdate } from '#functions/config/index.js';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { READ_AGAIN, reread } from '#functions/shared/rereads.js';
import { checkTenantConfig } from './config-checks.js';
import type { ApiVersion, Deps } from './deps.js';
import {
  applyLegacyFactorsCdi3,
  applyLegacyFactorsCdi5,
  applyV2Factors,
  type FactorState,
  factorStateOf,
  type LegacyUpdate,
} from './factors.js';
import type { ParsedConfigInput } from './input.js';
import { ALL_LOGIN_METHODS_ON, isBaseTenant, type TenantRecord } from './tenant.js';

/**
 * Saves a change to one tenant record with optimistic concurrency: reads it (undefined when there
 * is none), lets `change` decide the new record and the answer (or throw), and saves on condition
 * that nothing changed since the read; a concurrent change makes it read again (5 attempts). The
 * times are set here: created now unless it was stored, updated after any earlier update. The
 * built-in base tenant (never written, `createdAt` 0) counts as not stored.
 */
export async function saveTenantChange<R>(
  deps: Pick<Deps, 'store' | 'now'>,
  appId: string,
  tenantId: string,
  what: string,
  change: (existing: TenantRecord | undefined, now: number) => Promise<{ record: TenantRecord; result: R }>,
): Promise<R> {
  return reread({ attempts: 5, exhausted: `${what} kept conflicting with concurrent updates` }, async () => {
    const existing = await deps.store.getTenant(appId, tenantId);
    const stored = existing && existing.createdAt !== 0 ? existing : undefined;
    const now = deps.now();
    const { record, result } = await change(existing, now);
    const stamped: TenantRecord = {
      ...record,
      createdAt: stored ? stored.createdAt : now,
      updatedAt: Math.max(now, (stored?.updatedAt ?? 0) + 1),
    };
    return (await deps.store.saveTenant(stamped, stored?.updatedAt)) ? result : READ_AGAIN;
  });
}

/** Defaults of a tenant created by this request (docs/reference-behaviour.md "Creating or updating an app", "The legacy app input", "Creating or updating a tenant"). */
function creationDefaults(tenantId: string, api: ApiVersion, cdiAtLeast5: boolean): FactorState {
  if (tenantId === PUBLIC_TENANT_ID) return ALL_LOGIN_METHODS_ON;
  if (api === 'v2') return { ...ALL_LOGIN_METHODS_ON, firstFactors: [] };
  return {
    emailPasswordEnabled: false,
    thirdPartyEnabled: false,
    passwordlessEnabled: false,
    firstFactors: cdiAtLeast5 ? null : [],
    requiredSecondaryFactors: null,
  };
}

function newTenant(appId: string, tenantId: string, now: number, defaults: FactorState): TenantRecord {
  return {
    appId,
    tenantId,
    ...defaults,
    coreConfig: {},
    thirdPartyProviders: [],
    createdAt: now,
    updatedAt: now,
  };
}

function applyFactors(state: FactorState, input: LegacyUpdate, api: ApiVersion, cdiAtLeast5: boolean): FactorState {
  if (api === 'v2') return applyV2Factors(state, input);
  return cdiAtLeast5 ? applyLegacyFactorsCdi5(state, input) : applyLegacyFactorsCdi3(state, input);
}

/**
 * Creates or updates one tenant record (an app is its public tenant): its login methods as the API
 * version's rules apply them, its configuration overrides merged into the stored ones and checked.
 */
export async function upsertTenant(
  deps: Deps,
  appId: string,
  tenantId: string,
  input: ParsedConfigInput,
  api: ApiVersion,
  cdiAtLeast5: boolean,
): Promise<{ createdNew: boolean }> {
  return saveTenantChange(deps, appId, tenantId, 'tenant update', async (existing, now) => {
    const base = existing ?? newTenant(appId, tenantId, now, creationDefaults(tenantId, api, cdiAtLeast5));
    const factors = applyFactors(factorStateOf(base), input.factors, api, cdiAtLeast5);
    // A credential sent back as the fingerprint a response showed for it stays as stored.
    const update = isBaseTenant(appId, tenantId)
      ? (input.coreConfig ?? {})
      : resolveSecretUpdate(base.coreConfig, input.coreConfig ?? {}, INVALID_CORE_CONFIG_PREFIX);
    const coreConfig = mergeCoreConfig(base.coreConfig, update);
    await checkTenantConfig(deps, appId, tenantId, existing?.coreConfig, coreConfig);
    return { record: { ...base, ...factors, coreConfig }, result: { createdNew: existing === undefined } };
  });
}
