/**
 * Readiness of the password migration (docs/password-migration-hook.md "Readiness"): the app
 * counter item's `pwPending` / `pwMigrated` attributes, summed over the shards (O(shards) reads,
 * never a scan), and the list of pending login methods, paged shard by shard.
 */
import type { PendingPasswordPage, PendingPasswordPosition } from '#functions/domain/users/ports.js';
import {
  PASSWORD_MIGRATED_COUNTER,
  PASSWORD_PENDING_COUNTER,
  passwordPendingPartition,
  USER_COUNTER_SHARDS,
} from '../keys/users.js';
import { batchGetAll, queryPage, type Table } from '../kit/index.js';
import { counterKeys } from './items.js';

export async function passwordMigrationCounts(
  table: Table,
  appId: string,
): Promise<{ pending: number; migrated: number }> {
  let pending = 0;
  let migrated = 0;
  for (const item of await batchGetAll(table, counterKeys(appId, undefined))) {
    pending += (item[PASSWORD_PENDING_COUNTER] as number | undefined) ?? 0;
    migrated += (item[PASSWORD_MIGRATED_COUNTER] as number | undefined) ?? 0;
  }
  return { pending, migrated };
}

/**
 * Up to `limit` pending login methods after `after` (shard by shard, each in time-joined order);
 * `next` when more may follow.
 */
export async function listPasswordPending(
  table: Table,
  appId: string,
  limit: number,
  after: PendingPasswordPosition | undefined,
): Promise<PendingPasswordPage> {
  const users: PendingPasswordPage['users'] = [];
  let shard = after?.shard ?? 0;
  let startAfter = after?.sortKey;
  let last: PendingPasswordPosition | undefined;
  while (shard < USER_COUNTER_SHARDS && users.length < limit) {
    const pk = passwordPendingPartition(appId, shard);
    const page = await queryPage(
      table,
      { pk, ...(startAfter !== undefined ? { sk: { after: startAfter } } : {}) },
      { pageSize: limit - users.length, consistent: true },
    );
    for (const item of page.items) {
      users.push({
        userId: item.userId as string,
        email: item.email as string,
        timeJoined: item.timeJoined as number,
      });
      last = { shard, sortKey: item.SK as string };
    }
    if (page.next) {
      startAfter = (page.next as { SK: string }).SK;
      continue;
    }
    shard += 1;
    startAfter = undefined;
  }
  if (users.length < limit || last === undefined) return { users };
  return { users, next: last };
}
