/**
 * Everything kept about a user id besides the user itself — metadata, role assignments, TOTP
 * devices and attempt records, sessions (storage/sessions/session-store.ts) — found together: by the id's partition (a user removal) or, for a whole app, by the
 * GSI3 user-data shards (app deletion, including ids that never became users).
 */

import { isAccountDataSortKey, tokenLookupKeyOf } from './keys/accounts.js';
import { METADATA_SK, USER_DATA_SHARDS, userDataIndexPartition, userPartition } from './keys/metadata.js';
import { ROLE_SORT_PREFIX } from './keys/roles.js';
import { TOTP_ATTEMPTS_SORT_PREFIX, TOTP_SORT_PREFIX } from './keys/totp.js';
import { allShards, batchDeleteAll, type Key, queryAll, queryPages, type Table } from './kit/index.js';
import { purgeUserSessions } from './sessions/session-store.js';

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
