/**
 * The tenant record: one tenant of one app. An app is its `public` tenant, which also holds the
 * app's own configuration. Domain data: storage reads and writes it, the use cases decide it.
 */
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';

/** A third-party provider configuration, stored as the JSON the API received (normalised). */
export type ProviderConfig = Readonly<Record<string, unknown>> & { readonly thirdPartyId: string };

export interface TenantRecord {
  readonly appId: string;
  readonly tenantId: string;
  readonly emailPasswordEnabled: boolean;
  readonly thirdPartyEnabled: boolean;
  readonly passwordlessEnabled: boolean;
  readonly firstFactors: readonly string[] | null;
  readonly requiredSecondaryFactors: readonly string[] | null;
  readonly coreConfig: Readonly<Record<string, unknown>>;
  readonly thirdPartyProviders: readonly ProviderConfig[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Whether an app and tenant name the base tenant: the public tenant of the public app. */
export function isBaseTenant(appId: string, tenantId: string): boolean {
  return appId === PUBLIC_TENANT_ID && tenantId === PUBLIC_TENANT_ID;
}

/** Every recipe switched on and no factor lists: the base tenant's login methods, and a new app's. */
export const ALL_LOGIN_METHODS_ON = {
  emailPasswordEnabled: true,
  thirdPartyEnabled: true,
  passwordlessEnabled: true,
  firstFactors: null,
  requiredSecondaryFactors: null,
} as const;

/** The base tenant (public app, public tenant) always exists, even before anything is stored. */
export function defaultBaseTenant(): TenantRecord {
  return {
    appId: PUBLIC_TENANT_ID,
    tenantId: PUBLIC_TENANT_ID,
    ...ALL_LOGIN_METHODS_ON,
    coreConfig: {},
    thirdPartyProviders: [],
    createdAt: 0,
    updatedAt: 0,
  };
}

/** A stored tenant, or the built-in base tenant when that one was never written. */
export function withBaseDefault(
  appId: string,
  tenantId: string,
  record: TenantRecord | undefined,
): TenantRecord | undefined {
  if (record) return record;
  return isBaseTenant(appId, tenantId) ? defaultBaseTenant() : undefined;
}
