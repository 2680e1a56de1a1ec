/**
 * The app's primary-users guard: one item per app (keys/users.ts `primaryGuardKey`, in the table
 * holding its users) that lets a group of users who are not primary be imported with ONE condition
 * — "this app still has no primary user" — instead of one ConditionCheck per account info that no
 * primary user may hold (2 write units each: about 2 of the 18 units an imported user cost).
 *
 * Its states:
 * - absent: unknown (nothing imported yet, or data written before the guard existed): writes check
 *   every account info, and {@link primaryCheckMode} may set it to `primaries: false`;
 * - `primaries: false`: the app had no user at all when it was set, and no primary user since;
 * - `primaries: true`: a primary user's reservation was written since.
 *
 * What keeps it true: every user write that creates a primary user's reservation (PRIMARY item)
 * puts `primaries: true` in the same transaction (write.ts); `primaries: false` is only ever
 * written here, on condition that the guard is absent, after the app's exact user counters said it
 * had no user at all (so no primary user, whatever wrote it). A primary user created between that
 * read and this write has put the guard itself, so this write fails; one created after it
 * overwrites it, and every guarded transaction that commits after it fails its check (the import
 * then checks each account info, as before). So no reservation exists while the guard says false.
 */
import { COUNTER_APP_SK, primaryGuardKey } from '../keys/users.js';
import { batchGetAll, getItem, putItem, type Table, type TransactItem } from '../kit/index.js';
import { counterKeys } from './items.js';

const ENTITY = 'PRIMARY_GUARD';

/** How an import into `appId` may check that no primary user holds its users' account infos. */
export async function primaryCheckMode(table: Table, appId: string): Promise<'guard' | 'each'> {
  const guard = await getItem(table, primaryGuardKey(appId));
  if (guard) return guard.primaries === false ? 'guard' : 'each';
  // Any user at all (the app counters: every user once, by recipe mask `m<n>`) may be a primary one.
  const counters = await batchGetAll(table, counterKeys(appId, undefined));
  const users = counters
    .filter((item) => item.SK === COUNTER_APP_SK)
    .reduce(
      (n, item) => n + Object.entries(item).reduce((m, [name, v]) => m + (/^m\d+$/.test(name) ? Number(v) || 0 : 0), 0),
      0,
    );
  if (users !== 0) return 'each';
  const set = await putItem(
    table,
    { ...primaryGuardKey(appId), entityType: ENTITY, appId, primaries: false },
    { expression: 'attribute_not_exists(PK)' },
  );
  return set ? 'guard' : 'each';
}

/** The check of a guarded write: the app still has had no primary user. */
export const guardCheck = (table: Table, appId: string): TransactItem => ({
  ConditionCheck: {
    TableName: table.name,
    Key: primaryGuardKey(appId),
    ConditionExpression: 'primaries = :none',
    ExpressionAttributeValues: { ':none': false },
  },
});

/** The guard's update in a write that creates a primary user's reservation. */
export const guardPut = (table: Table, appId: string): TransactItem => ({
  Put: { TableName: table.name, Item: { ...primaryGuardKey(appId), entityType: ENTITY, appId, primaries: true } },
});
