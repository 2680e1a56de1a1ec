/**
 * A tenant's third-party providers: `PUT /<t>/recipe/multitenancy/config/thirdparty` and
 * `POST …/config/thirdparty/remove` (docs/reference-behaviour.md "Third-party provider configuration").
 * What a provider configuration may hold is checked in functions/domain/multitenancy/thirdparty.ts.
 */
import { resolveProviderSecretUpdate } from '#functions/config/index.js';
import { AppOrTenantNotFoundError } from '#functions/shared/errors.js';
import type { Caller, Deps } from './deps.js';
import type { ProviderConfig } from './tenant.js';
import { saveTenantChange } from './tenant-write.js';
import { checkProvidersSize } from './thirdparty.js';

/**
 * `PUT /<t>/recipe/multitenancy/config/thirdparty`: replaces or appends one provider.
 * A secret sent back as the fingerprint a response showed for it keeps its stored value.
 */
export async function upsertThirdPartyConfig(deps: Deps, caller: Caller, provider: ProviderConfig) {
  return updateProviders(deps, caller, (providers) => {
    const index = providers.findIndex((p) => p.thirdPartyId === provider.thirdPartyId);
    const next = [...providers];
    const resolved = resolveProviderSecretUpdate(index >= 0 ? providers[index] : undefined, provider);
    if (index >= 0) next[index] = resolved;
    else next.push(resolved);
    // Only a list that is added to is measured: a removal is always possible.
    checkProvidersSize(next);
    return { providers: next, result: { status: 'OK', createdNew: index < 0 } };
  });
}

/** `POST /<t>/recipe/multitenancy/config/thirdparty/remove`. */
export async function removeThirdPartyConfig(deps: Deps, caller: Caller, { thirdPartyId }: { thirdPartyId: string }) {
  return updateProviders(deps, caller, (providers) => {
    const next = providers.filter((p) => p.thirdPartyId !== thirdPartyId);
    return { providers: next, result: { status: 'OK', didConfigExist: next.length !== providers.length } };
  });
}

/** The caller's tenant with its providers changed (it must exist: the pipeline checked, a removal may have come since). */
function updateProviders<R>(
  deps: Deps,
  caller: Caller,
  change: (providers: readonly ProviderConfig[]) => { providers: ProviderConfig[]; result: R },
): Promise<R> {
  return saveTenantChange(deps, caller.appId, caller.tenantId, 'provider update', async (current) => {
    if (!current) throw new AppOrTenantNotFoundError(caller.appId, caller.tenantId);
    const { providers, result } = change(current.thirdPartyProviders);
    return { record: { ...current, thirdPartyProviders: providers }, result };
  });
}
