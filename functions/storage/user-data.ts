/**
 * Everything kept about a user id besides the user itself — metadata, role assignments, TOTP
 * devices and attempt records, sessions (storage/sessions/session-store.ts) — found together: by the id's partition (a user removal) or, for a whole app, by the
 * GSI3 user-data shards (app deletion, including ids that never became users).
 */

import type { UserIdDataKind } from '#functions/domain/users/ports.js';
import {
  emailVerificationTenantPrefix,
  isAccountDataSortKey,
  isEmailVerificationSortKey,
  tokenLookupKeyOf,
} from './keys/accounts.js';
import { METADATA_SK, USER_DATA_SHARDS, userDataIndexPartition, userPartition } from './keys/metadata.js';
import { ROLE_SORT_PREFIX, userRoleSortPrefix } from './keys/roles.js';
import { TOTP_ATTEMPTS_SORT_PREFIX, TOTP_SORT_PREFIX, totpAttemptsSortKey } from './keys/totp.js';
import { allShards, batchDeleteAll, type Key, queryAll, queryPages, type Table } from './kit/index.js';
import { hasLiveSession, purgeUserSessions, purgeUserTenantSessions } from './sessions/session-store.js';

/** Keys of the user-data items of one id: metadata, role assignments and TOTP attempts (all tenants), TOTP devices. */
async function userDataKeys(table: Table, appId: string, userId: string): Promise<Key[]> {
  const items = await queryAll(
    table,
    { pk: userPartition(appId, userId) },
    { attributes: ['PK', 'SK'], consistent: true },
  );
  // Also the id's password-reset and email-verification tokens (each with its lookup item under
  // the token's hash) and its verified emails (keys/accounts.ts).
  return items
    .map((item) => ({ PK: item.PK as string, SK: item.SK as string }))
    .filter(
      ({ SK }) =>
        SK === METADATA_SK ||
        SK.startsWith(ROLE_SORT_PREFIX) ||
        SK.startsWith(TOTP_SORT_PREFIX) ||
        SK.startsWith(TOTP_ATTEMPTS_SORT_PREFIX) ||
        isAccountDataSortKey(SK),
    )
    .flatMap((key) => {
      const lookup = tokenLookupKeyOf(appId, key.SK);
      return lookup ? [lookup, key] : [key];
    });
}

/** Deletes metadata, role assignments, TOTP devices and attempts, and sessions of `userId` (batched, not atomic). */
export async function purgeUserData(table: Table, appId: string, userId: string): Promise<void> {
  await batchDeleteAll(table, await userDataKeys(table, appId, userId));
  await purgeUserSessions(table, appId, userId);
}

/**
 * What is kept under a user id besides a user (the reference's non-auth recipes), in the
 * reference's order: sessions not expired at `now`, metadata, role assignments, email-verification
 * tokens and verified emails, TOTP devices. One consistent Query of the id's partition (sort keys
 * only) and one Query of its sessions.
 */
export async function userIdDataKinds(
  table: Table,
  appId: string,
  userId: string,
  now: number,
): Promise<UserIdDataKind[]> {
  const [items, session] = await Promise.all([
    queryAll(table, { pk: userPartition(appId, userId) }, { attributes: ['SK'], consistent: true }),
    hasLiveSession(table, appId, userId, now),
  ]);
  const sortKeys = items.map((item) => item.SK as string);
  const kinds: UserIdDataKind[] = [];
  if (session) kinds.push('Session');
  if (sortKeys.includes(METADATA_SK)) kinds.push('UserMetadata');
  if (sortKeys.some((sk) => sk.startsWith(ROLE_SORT_PREFIX))) kinds.push('UserRoles');
  if (sortKeys.some(isEmailVerificationSortKey)) kinds.push('EmailVerification');
  if (sortKeys.some((sk) => sk.startsWith(TOTP_SORT_PREFIX) && !sk.startsWith(TOTP_ATTEMPTS_SORT_PREFIX))) {
    kinds.push('TOTP');
  }
  return kinds;
}

/**
 * Deletes what is kept under a user id for one tenant — role assignments, email-verification
 * tokens and TOTP attempt records of that tenant, and its sessions there — when the user leaves
 * the tenant. True when there was any.
 */
export async function purgeUserTenantData(table: Table, appId: string, userId: string, tenantId: string) {
  const items = await queryAll(
    table,
    { pk: userPartition(appId, userId) },
    { attributes: ['PK', 'SK'], consistent: true },
  );
  const keys = items
    .map((item) => ({ PK: item.PK as string, SK: item.SK as string }))
    .filter(
      ({ SK }) =>
        SK.startsWith(userRoleSortPrefix(tenantId)) ||
        SK.startsWith(emailVerificationTenantPrefix(tenantId)) ||
        SK === totpAttemptsSortKey(tenantId),
    )
    .flatMap((key) => {
      const lookup = tokenLookupKeyOf(appId, key.SK);
      return lookup ? [lookup, key] : [key];
    });
  await batchDeleteAll(table, keys);
  const sessions = await purgeUserTenantSessions(table, appId, userId, tenantId);
  return keys.length > 0 || sessions > 0;
}

/** App-deletion purger: every user-data item of the app, by Query on each GSI3 shard. */
export async function purgeAppUserData(table: Table, appId: string): Promise<void> {
  await Promise.all(
    allShards(USER_DATA_SHARDS).map(async (shard) => {
      const pages = queryPages(
        table,
        { index: 'GSI3', pk: userDataIndexPartition(appId, shard) },
        { attributes: ['PK', 'SK'] },
      );
      for await (const page of pages) await batchDeleteAll(table, page as Key[]);
    }),
  );
}
