/**
 * The stores of one app's table, built on demand and kept per table (building them is cheap: they
 * are closures over the table). Wiring modules ask here; nothing else builds a store.
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { IdempotencyStore, StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import type { MetadataStore } from '#functions/domain/metadata/ports.js';
import type { RoleStore } from '#functions/domain/roles/ports.js';
import type { TotpStore } from '#functions/domain/totp/ports.js';
import type { UserStore } from '#functions/domain/users/ports.js';
import { createIdempotencyStore } from '#functions/storage/idempotency-store.js';
import type { Table } from '#functions/storage/kit/index.js';
import { createMetadataStore } from '#functions/storage/metadata-store.js';
import { createRoleStore } from '#functions/storage/role-store.js';
import { createStagingStore } from '#functions/storage/staging/store.js';
import { createTenantStore } from '#functions/storage/tenant-store.js';
import { createTotpStore } from '#functions/storage/totp-store.js';
import { createUserStore } from '#functions/storage/users/store.js';
import { credentialsEnvelope } from './credentials.js';
import { appTable, baseTable } from './tables.js';

export interface AppStores {
  readonly users: UserStore;
  readonly staging: StagingStore;
  /** Requests remembered under an Idempotency-Key. */
  readonly idempotency: IdempotencyStore;
  readonly roles: RoleStore;
  readonly metadata: MetadataStore;
  readonly totp: TotpStore;
}

const byTable = new Map<string, AppStores>();

/** The stores of everything an app owns, for the app's table. */
export function storesOf(table: Table): AppStores {
  let stores = byTable.get(table.name);
  if (!stores) {
    stores = {
      users: createUserStore(table),
      staging: createStagingStore(table, baseTable, credentialsEnvelope),
      idempotency: createIdempotencyStore(table),
      roles: createRoleStore(table),
      metadata: createMetadataStore(table),
      totp: createTotpStore(table),
    };
    byTable.set(table.name, stores);
  }
  return stores;
}

/** The stores of the app whose effective configuration a request resolved. */
export const appStores = (config: EffectiveConfig): AppStores => storesOf(appTable(config));

/** Apps and tenants: always the base table. */
export const tenantStore = createTenantStore(baseTable, credentialsEnvelope);
