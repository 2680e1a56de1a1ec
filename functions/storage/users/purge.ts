/** Removing users in bulk: a whole app's (app deletion) and a deleted tenant's memberships. */
import type { UserRecord } from '#functions/domain/users/model.js';
import { checkTimeLeft } from '#functions/shared/call-budget.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import {
  appUsersIndexPartition,
  primaryGuardKey,
  tenantUsersIndexPartition,
  USER_COUNTER_SHARDS,
  USER_SK,
  userCounterPartition,
} from '../keys/users.js';
import { allShards, batchDeleteAll, type Key, queryPage, queryPages, sleep, type Table } from '../kit/index.js';
import { deriveItems, recordFromItem } from './items.js';
import { getUserBySuperTokensId, getUsers } from './reads.js';
import { DynamoUserWrite } from './write.js';

/**
 * App-deletion purger: every user of the app (Query of the GSI2 shards `APP#<a>#USERS#<n>`) with
 * all its derived items and its user partitions, then the counter shards and the primary-users
 * guard. Never a Scan.
 */
export async function purgeAppUsers(table: Table, appId: string): Promise<void> {
  for (const shard of allShards(USER_COUNTER_SHARDS)) {
    for await (const page of queryPages(table, { index: 'GSI2', pk: appUsersIndexPartition(appId, shard) })) {
      // A large app takes longer than one request: what is deleted stays, removing again finishes.
      checkTimeLeft("deleting the app's users");
      const keys: Key[] = [];
      for (const item of page) {
        const record = recordFromItem(item);
        if (!record) continue;
        // The USER item last, so an interrupted purge still finds this user next time.
        const derived = deriveItems(appId, record).map((d) => d.key);
        keys.push(...derived.filter((k) => k.SK !== USER_SK), ...derived.filter((k) => k.SK === USER_SK));
      }
      await batchDeleteAll(table, keys);
    }
  }
  for (const shard of allShards(USER_COUNTER_SHARDS)) {
    for await (const page of queryPages(
      table,
      { pk: userCounterPartition(appId, shard) },
      { attributes: ['PK', 'SK'] },
    )) {
      await batchDeleteAll(table, page as Key[]);
    }
  }
  await batchDeleteAll(table, [primaryGuardKey(appId)]);
}

/** A user that keeps changing under its rewrite is left for the next look at the tenant's users. */
const TENANT_REMOVAL_REREADS: RereadPolicy<undefined> = {
  attempts: 5,
  exhausted: 'the user kept changing while the tenant was taken out of it: the next round looks again',
  orElse: () => undefined,
};

/**
 * For tenant deletion: takes the tenant out of every user in it (Query of the tenant's GSI1
 * partition, then one guarded rewrite per user, which also frees the tenant's account infos and
 * moves the counters). Users left without tenants stay in the app, as in the reference.
 */
export async function removeTenantFromUsers(table: Table, appId: string, tenantId: string): Promise<void> {
  const rounds = new Map<string, number>();
  for (;;) {
    const page = await queryPage(
      table,
      { index: 'GSI1', pk: tenantUsersIndexPartition(appId, tenantId) },
      { attributes: ['userId'], pageSize: 100 },
    );
    // An entry seen in 3 rounds is stale index data or a user that cannot be rewritten: stop.
    const userIds = page.items.map((i) => i.userId as string).filter((id) => (rounds.get(id) ?? 0) < 3);
    if (userIds.length === 0) return;
    for (const id of userIds) rounds.set(id, (rounds.get(id) ?? 0) + 1);
    for (const user of await getUsers(table, appId, userIds)) {
      await reread(TENANT_REMOVAL_REREADS, async (attempt) => {
        const current = attempt === 0 ? user : await getUserBySuperTokensId(table, appId, user.userId);
        if (!current?.loginMethods.some((lm) => lm.tenantIds.includes(tenantId))) return undefined;
        const after: UserRecord = {
          ...current,
          loginMethods: current.loginMethods.map((lm) => ({
            ...lm,
            tenantIds: lm.tenantIds.filter((t) => t !== tenantId),
          })),
          version: current.version + 1,
        };
        const write = new DynamoUserWrite(table, appId);
        write.add({ changes: [{ before: current, after }] });
        return (await write.commit()).ok ? undefined : READ_AGAIN;
      });
    }
    // GSI1 is eventually consistent: give it a moment before looking again.
    await sleep(50);
  }
}
