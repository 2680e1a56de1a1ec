/**
 * Removing what an app owns, store by store. This module only orchestrates: every store brings the
 * purger of its own items (each finds them by Query, never a Scan).
 */
import type { AppDataPurger } from '#functions/domain/multitenancy/ports.js';
import { PUBLIC } from '#functions/shared/prefix.js';
import { purgeAppIdempotency } from './idempotency-store.js';
import { appPartition, tenantSortKey } from './keys/apps.js';
import { batchDeleteAll, type Key, queryPages, type Table } from './kit/index.js';
import { purgeTenantRoleAssignments } from './role-store.js';
import { purgeAppStagedUsers } from './staging/purge.js';
import { purgeAppUserData } from './user-data.js';
import { purgeAppUsers, removeTenantFromUsers } from './users/purge.js';

/**
 * Every collection an app owns, each with its purger. A new app-owned entity adds its purger
 * here; the app-deletion test proves nothing with the app's partition prefix survives.
 */
const PURGERS: readonly ((table: Table, appId: string) => Promise<void>)[] = [
  // The app partition itself (tenants, roles …), except the public tenant, which the caller
  // deletes last so an interrupted deletion can be finished by calling remove again.
  async (table, appId) => {
    for await (const page of queryPages(table, { pk: appPartition(appId) }, { attributes: ['PK', 'SK'] })) {
      await batchDeleteAll(
        table,
        (page as Key[]).filter((item) => item.SK !== tenantSortKey(PUBLIC)),
      );
    }
  },
  // Metadata, role assignments and TOTP devices of every user id (users or not): GSI3 shards.
  purgeAppUserData,
  // Users with their account-info, tenant, link and mapping items (GSI2 shards), then the counters.
  purgeAppUsers,
  // Staged bulk-import users (GSI1 status shards), their counters and marker.
  purgeAppStagedUsers,
  // Requests remembered under an Idempotency-Key (GSI1), with their answers and chunk markers.
  purgeAppIdempotency,
];

/**
 * The purger of apps and tenants. `appTable` is the table holding what the app owns (today the
 * base table for every app); the app's own partition (tenants, roles) is purged there too.
 */
export function createAppDataPurger(appTable: (appId: string) => Table): AppDataPurger {
  return {
    async purgeAppData(appId) {
      const table = appTable(appId);
      for (const purge of PURGERS) await purge(table, appId);
    },
    async purgeTenantData(appId, tenantId) {
      const table = appTable(appId);
      await removeTenantFromUsers(table, appId, tenantId);
      await purgeTenantRoleAssignments(table, appId, tenantId);
    },
  };
}
