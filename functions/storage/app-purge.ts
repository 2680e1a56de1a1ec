/**
 * Removing what an app owns, store by store, and finding whether it owns anything in a table.
 * This module only orchestrates: every store brings the purger of its own items (each finds them
 * by Query, never a Scan).
 */
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { checkTimeLeft } from '#functions/shared/call-budget.js';
import { purgeAppIdempotency } from './idempotency-store.js';
import { appPartition, tenantSortKey } from './keys/apps.js';
import { DASHBOARD_SORT_PREFIX } from './keys/dashboard.js';
import { USER_DATA_SHARDS, userDataIndexPartition } from './keys/metadata.js';
import { oauthClientsPartition } from './keys/oauth-clients.js';
import { ROLE_SORT_PREFIX } from './keys/roles.js';
import { signingKeysPartition } from './keys/sessions.js';
import { appUsersIndexPartition, USER_COUNTER_SHARDS } from './keys/users.js';
import {
  allShards,
  batchDeleteAll,
  type Key,
  type PartitionQuery,
  queryPage,
  queryPages,
  type Table,
} from './kit/index.js';
import { purgeAppOAuthClients } from './oauth-client-store.js';
import { passwordlessHoldingQueries, purgeAppPasswordless, purgeTenantPasswordless } from './passwordless-store.js';
import { purgeTenantRoleAssignments } from './role-store.js';
import { countOf } from './staging/listing.js';
import { purgeAppStagedUsers, purgeStagingMarker } from './staging/purge.js';
import { purgeTenantTotpAttempts } from './totp-store.js';
import { purgeAppUserData } from './user-data.js';
import { purgeAppUsers, removeTenantFromUsers } from './users/purge.js';
import { purgeAppWebauthn, purgeTenantWebauthnOptions, webauthnHoldingQueries } from './webauthn-store.js';

/**
 * Every collection an app owns in its table, each with its purger. A new app-owned entity adds
 * its purger here (and its check to HOLDINGS); the app-deletion tests prove nothing with the
 * app's partition prefix survives, in the app's table or the base table.
 */
const PURGERS: readonly ((table: Table, appId: string) => Promise<void>)[] = [
  // The app partition itself (roles, the dashboard's users and sessions; in the base table also
  // the tenants), except the public tenant, which the caller deletes last so an interrupted
  // deletion can be finished by calling remove again.
  purgeAppPartition,
  // Metadata, role assignments, TOTP devices and attempts, and sessions of every user id (users or not): GSI3 shards.
  purgeAppUserData,
  // The app's signing keys and refresh-token key (one partition).
  purgeAppSigningKeys,
  // Users with their account-info, tenant, link and mapping items (GSI2 shards), then the counters.
  purgeAppUsers,
  // Staged bulk-import users (GSI1 status shards) and their counters.
  purgeAppStagedUsers,
  // Requests remembered under an Idempotency-Key (GSI1), with their answers and chunk markers.
  purgeAppIdempotency,
  // Passwordless devices and their codes (GSI2 shards).
  purgeAppPasswordless,
  // OAuth2 clients (one partition).
  purgeAppOAuthClients,
  // WebAuthn options and passkeys (GSI2 shards).
  purgeAppWebauthn,
];

async function purgeAppPartition(table: Table, appId: string): Promise<void> {
  for await (const page of queryPages(table, { pk: appPartition(appId) }, { attributes: ['PK', 'SK'] })) {
    await batchDeleteAll(
      table,
      (page as Key[]).filter((item) => item.SK !== tenantSortKey(PUBLIC_TENANT_ID)),
    );
  }
}

async function purgeAppSigningKeys(table: Table, appId: string): Promise<void> {
  for await (const page of queryPages(table, { pk: signingKeysPartition(appId) }, { attributes: ['PK', 'SK'] })) {
    await batchDeleteAll(table, page as Key[]);
  }
}

/**
 * Deletes everything the app owns except its public tenant item (the caller deletes it last):
 * first every collection in the app's table, then what the base table keeps for it (its other
 * tenants and its staging marker). Never drops a table, never a Scan. Idempotent: an interrupted
 * purge is finished by running it again.
 */
export async function purgeAppData(appTable: Table, base: Table, appId: string): Promise<void> {
  for (const purge of PURGERS) {
    // Within the request's time (503 otherwise: the removal is finished by removing again).
    checkTimeLeft("purging the app's data");
    await purge(appTable, appId);
  }
  if (appTable.name !== base.name) await purgeAppPartition(base, appId);
  await purgeStagingMarker(base, appId);
}

/**
 * Takes a deleted tenant out of the users, role assignments, passwordless codes, WebAuthn options
 * and TOTP attempts of the app's table (idempotent).
 */
export async function purgeTenantData(appTable: Table, appId: string, tenantId: string): Promise<void> {
  await removeTenantFromUsers(appTable, appId, tenantId);
  await purgeTenantRoleAssignments(appTable, appId, tenantId);
  await purgeTenantPasswordless(appTable, appId, tenantId);
  await purgeTenantTotpAttempts(appTable, appId, tenantId);
  await purgeTenantWebauthnOptions(appTable, appId, tenantId);
}

/** Whether there is at least one item in this partition (of the table or an index). */
async function anyIn(table: Table, query: PartitionQuery): Promise<boolean> {
  return (await queryPage(table, query, { attributes: ['PK'], pageSize: 1 })).items.length > 0;
}

const anyInShards = async (table: Table, queries: readonly PartitionQuery[]) =>
  (await Promise.all(queries.map((q) => anyIn(table, q)))).some(Boolean);

/** What an app may own in a table, each with a check that finds any of it by Query. */
const HOLDINGS: readonly { kind: string; holds: (table: Table, appId: string) => Promise<boolean> }[] = [
  {
    kind: 'users',
    holds: (table, appId) =>
      anyInShards(
        table,
        allShards(USER_COUNTER_SHARDS).map((shard) => ({ index: 'GSI2', pk: appUsersIndexPartition(appId, shard) })),
      ),
  },
  {
    kind: 'staged users',
    holds: async (table, appId) => (await countOf(table, appId)) > 0,
  },
  {
    kind: 'roles',
    holds: (table, appId) => anyIn(table, { pk: appPartition(appId), sk: { beginsWith: ROLE_SORT_PREFIX } }),
  },
  {
    kind: 'dashboard users and sessions',
    holds: (table, appId) => anyIn(table, { pk: appPartition(appId), sk: { beginsWith: DASHBOARD_SORT_PREFIX } }),
  },
  {
    kind: 'signing keys',
    holds: (table, appId) => anyIn(table, { pk: signingKeysPartition(appId) }),
  },
  {
    kind: 'user data (metadata, role assignments, TOTP devices, sessions)',
    holds: (table, appId) =>
      anyInShards(
        table,
        allShards(USER_DATA_SHARDS).map((shard) => ({ index: 'GSI3', pk: userDataIndexPartition(appId, shard) })),
      ),
  },
  {
    kind: 'passwordless codes',
    holds: (table, appId) => anyInShards(table, passwordlessHoldingQueries(appId)),
  },
  {
    kind: 'OAuth2 clients',
    holds: (table, appId) => anyIn(table, { pk: oauthClientsPartition(appId) }),
  },
  {
    kind: 'passkeys and WebAuthn options',
    holds: (table, appId) => anyInShards(table, webauthnHoldingQueries(appId)),
  },
];

/** The kinds of data the app owns in `table` (empty when none): what moving it elsewhere would leave behind. */
export async function appHoldings(table: Table, appId: string): Promise<string[]> {
  const found = await Promise.all(HOLDINGS.map(async (h) => ((await h.holds(table, appId)) ? h.kind : undefined)));
  return found.filter((kind) => kind !== undefined);
}
