import type { ConfigValues } from '#functions/config/index.js';
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
  /**
   * Optimistic write: false when the stored record changed since `expectedUpdatedAt` was read.
   * Credentials are stored sealed or as digests (values already in those forms are kept).
   */
  saveTenant(record: TenantRecord, expectedUpdatedAt: number | undefined): Promise<boolean>;
  /**
   * The tenant with its third-party providers' secrets in clear, as the SDK reads them (tenant get
   * and list). Records read by the other methods carry them sealed. A secret that can never be
   * opened is left out (and logged, without it).
   */
  openSecrets(tenant: TenantRecord): Promise<TenantRecord>;
  deleteTenant(appId: string, tenantId: string): Promise<boolean>;
}

/**
 * What removing apps and tenants needs from the stores of everything an app owns. The app's own
 * overrides (its public tenant's coreConfig, already loaded by the caller) say which table holds
 * its data, so finding the table costs no read.
 */
export interface AppDataPurger {
  /**
   * Deletes everything the app owns, in its table and in the base table, except its public tenant
   * item (deleted last, by the caller). Never drops a table.
   */
  purgeAppData(appId: string, appOverrides: ConfigValues): Promise<void>;
  /** Takes a deleted tenant out of users and role assignments (idempotent). */
  purgeTenantData(appId: string, tenantId: string, appOverrides: ConfigValues): Promise<void>;
}

/** The tables apps keep their data in (`dynamodb_table_name`; unset = the base table). */
export interface AppTables {
  /** Where an app without `dynamodb_table_name` keeps its data. */
  baseTableName(): string;
  /**
   * Why the named table cannot hold an app's data (it does not exist, is not active, lacks this
   * core's keys and indexes, or the core may not use it), or undefined when it can. Where the
   * runtime provisions tables (the local runtime), a missing table is created first.
   */
  tableProblem(name: string): Promise<string | undefined>;
  /** The kinds of data the app owns in the named table ('users', 'staged users', …); empty = none. */
  appHoldings(appId: string, tableName: string): Promise<readonly string[]>;
}
