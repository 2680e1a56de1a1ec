import type { TenantRecord } from './tenant.js';

/** What the multitenancy use cases need from storage (the base table: apps and tenants). */
export interface TenantStore {
  getTenant(appId: string, tenantId: string): Promise<TenantRecord | undefined>;
  /** The app (its public tenant) and the path's tenant, in one read. */
  getTenantPair(
    appId: string,
    tenantId: string,
  ): Promise<{ app: TenantRecord | undefined; tenant: TenantRecord | undefined }>;
  listTenants(appId: string): Promise<TenantRecord[]>;
  listAppIds(): Promise<string[]>;
  /** Optimistic write: false when the stored record changed since `expectedUpdatedAt` was read. */
  saveTenant(record: TenantRecord, expectedUpdatedAt: number | undefined): Promise<boolean>;
  deleteTenant(appId: string, tenantId: string): Promise<boolean>;
}

/** What removing apps and tenants needs from the stores of everything an app owns. */
export interface AppDataPurger {
  /** Deletes everything the app owns except its public tenant item (deleted last, by the caller). */
  purgeAppData(appId: string): Promise<void>;
  /** Takes a deleted tenant out of users and role assignments (idempotent). */
  purgeTenantData(appId: string, tenantId: string): Promise<void>;
}
