import { presentCoreConfig } from '#functions/config/index.js';
import type { ApiVersion } from './deps.js';
import { factorStateOf, legacyRecipeEnabled, v2FirstFactors } from './factors.js';
import type { TenantRecord } from './tenant.js';

/**
 * A tenant as the v2 APIs show it (docs/reference-behaviour.md "Listing apps"): optional keys omitted, not null. Credentials in its
 * coreConfig are shown as fingerprints (functions/config/credential-values.ts), never as values.
 */
function tenantViewV2(tenant: TenantRecord): Record<string, unknown> {
  const s = factorStateOf(tenant);
  const firstFactors = v2FirstFactors(s);
  return {
    tenantId: tenant.tenantId,
    thirdParty: { providers: tenant.thirdPartyProviders },
    ...(firstFactors !== null ? { firstFactors } : {}),
    ...(s.requiredSecondaryFactors !== null ? { requiredSecondaryFactors: s.requiredSecondaryFactors } : {}),
    coreConfig: presentCoreConfig(tenant.coreConfig),
  };
}

/** A tenant as the legacy APIs show it; the shape depends on the request's CDI version. */
function tenantViewLegacy(tenant: TenantRecord, cdiAtLeast5: boolean): Record<string, unknown> {
  const s = factorStateOf(tenant);
  const view: Record<string, unknown> = {
    tenantId: tenant.tenantId,
    emailPassword: { enabled: legacyRecipeEnabled(s, 'emailPassword', cdiAtLeast5) },
    thirdParty: { enabled: legacyRecipeEnabled(s, 'thirdParty', cdiAtLeast5), providers: tenant.thirdPartyProviders },
    passwordless: { enabled: legacyRecipeEnabled(s, 'passwordless', cdiAtLeast5) },
    coreConfig: presentCoreConfig(tenant.coreConfig),
  };
  if (cdiAtLeast5) {
    if (s.firstFactors !== null && s.firstFactors.length > 0) view.firstFactors = s.firstFactors;
    if (s.requiredSecondaryFactors !== null) view.requiredSecondaryFactors = s.requiredSecondaryFactors;
  }
  return view;
}

/** A tenant as the route's API version shows it. */
export function tenantView(tenant: TenantRecord, api: ApiVersion, cdiAtLeast5: boolean): Record<string, unknown> {
  return api === 'v2' ? tenantViewV2(tenant) : tenantViewLegacy(tenant, cdiAtLeast5);
}
