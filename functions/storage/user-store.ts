/**
 * DynamoDB implementation of the users storage port. Every user write (sign-up, import, mapping,
 * removal) is ONE TransactWriteItems call built by diffing the derived items of the user records
 * before and after (user-items.ts); uniqueness lives in conditional writes inside it, counters are
 * sharded ADD updates inside it. A cancelled transaction is mapped back, by action index, to the
 * entities whose conditions failed.
 */

import { randomUUID } from 'node:crypto';
import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { UserRecord } from '#functions/domain/users/model.js';
import type {
  AccountInfoQuery,
  ListUsersQuery,
  UserIdMapping,
  UserPosition,
  UserStore,
  UserWritePlan,
  WriteEntity,
  WriteResult,
} from '#functions/domain/users/ports.js';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { deleteKeys, purgePartition } from './app-purge.js';
import { classifyCancellation, isTransientError } from './dynamo-errors.js';
import {
  appUsersIndexPartition,
  EXTERNAL_ID_SK,
  emailPartition,
  externalIdPartition,
  LINK_SK,
  PRIMARY_SK,
  phonePartition,
  tenantUsersIndexPartition,
  tenantUsersIndexSortKey,
  thirdPartyPartition,
  USER_COUNTER_SHARDS,
  USER_SK,
  uniqueSortKey,
  userCounterPartition,
  userPartition,
} from './keys/users.js';
import { metadataMergeWrite, purgeUserData } from './metadata-store.js';
import { queryAll, queryPages } from './query.js';
import { roleExistsCheck, userRolePut } from './role-store.js';
import { totpDevicePut } from './totp-store.js';
import {
  counterAttribute,
  counterDeltas,
  counterKeys,
  type DerivedItem,
  deriveItems,
  type Key,
  keyString,
  primaryKeys,
  recordFromItem,
  shardOf,
  type TransactWriteItem,
} from './user-items.js';

interface Action {
  readonly item: TransactWriteItem;
  readonly entity: WriteEntity;
}

interface BuiltPlan {
  readonly actions: Action[];
  /** Entities whose key another part of the same plan already claims: conflicts found before writing. */
  readonly duplicates: WriteEntity[];
  /** Per action, the index of the plan it belongs to (undefined: shared counters, group extras). */
  readonly planOf: (number | undefined)[];
  /** Per duplicate, the index of the plan that needed the key a second time. */
  readonly duplicatePlans: number[];
}

const sameContent = (a: DerivedItem, b: DerivedItem) => JSON.stringify(a.item) === JSON.stringify(b.item);

/**
 * Everything but metadata (which needs a read): synchronous, so sizes can be checked before hashing.
 * Several plans (a group of users written together) share ONE update per counter item: their
 * deltas all go to the first user's shard — counts are sums over the shards, so any shard may
 * carry any user's share, and one counter action instead of one per user is what makes grouping
 * cheaper. A key two plans both need is reported as a duplicate (the group is then written user
 * by user, where the usual conflict rules apply).
 */
function buildSyncActions(
  appId: string,
  plans: readonly UserWritePlan[],
  groupExtra: readonly object[] = [],
): BuiltPlan {
  const table = tableName();
  const actions: Action[] = [];
  const duplicates: WriteEntity[] = [];
  const claimed = new Set<string>();
  const claim = (key: Key, entity: WriteEntity): boolean => {
    const id = keyString(key);
    if (claimed.has(id)) {
      duplicates.push(entity);
      return false;
    }
    claimed.add(id);
    return true;
  };
  const checkedRoles = new Set<string>();
  const metadataUsers = new Set<string>();
  const planOf: (number | undefined)[] = [];
  const duplicatePlans: number[] = [];

  for (const [planIndex, plan] of plans.entries()) {
    const firstAction = actions.length;
    const firstDuplicate = duplicates.length;
    for (const change of plan.changes) {
      const before = new Map(
        (change.before ? deriveItems(appId, change.before) : []).map((d) => [keyString(d.key), d] as const),
      );
      const after = change.after ? deriveItems(appId, change.after) : [];
      const afterKeys = new Set(after.map((d) => keyString(d.key)));
      const version = change.before?.version;
      for (const derived of after) {
        const old = before.get(keyString(derived.key));
        const isUser = derived.key.SK === USER_SK;
        if (old && !isUser && sameContent(old, derived)) continue;
        if (!claim(derived.key, derived.entity)) continue;
        const Item = { ...derived.key, ...derived.item };
        if (!old) {
          actions.push({
            entity: derived.entity,
            item: { Put: { TableName: table, Item, ConditionExpression: 'attribute_not_exists(PK)' } },
          });
        } else if (isUser) {
          actions.push({
            entity: derived.entity,
            item: {
              Put: {
                TableName: table,
                Item,
                ConditionExpression: 'version = :v',
                ExpressionAttributeValues: { ':v': version },
              },
            },
          });
        } else {
          actions.push({ entity: derived.entity, item: { Put: { TableName: table, Item } } });
        }
      }
      for (const [id, old] of before) {
        if (afterKeys.has(id)) continue;
        if (!claim(old.key, old.entity)) continue;
        const isUser = old.key.SK === USER_SK;
        actions.push({
          entity: old.entity,
          item: {
            Delete: {
              TableName: table,
              Key: old.key,
              ...(isUser ? { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': version } } : {}),
            },
          },
        });
      }
    }

    for (const check of plan.primaryFreeChecks ?? []) {
      for (const key of primaryKeys(appId, check.tenantId, check)) {
        if (claimed.has(keyString(key))) continue;
        claimed.add(keyString(key));
        actions.push({
          entity: { kind: 'primaryAccountInfo' },
          item: { ConditionCheck: { TableName: table, Key: key, ConditionExpression: 'attribute_not_exists(PK)' } },
        });
      }
    }
    for (const externalUserId of plan.externalIdsNotUserIds ?? []) {
      for (const SK of [USER_SK, LINK_SK]) {
        const key = { PK: userPartition(appId, externalUserId), SK };
        if (!claim(key, { kind: 'externalIdIsUserId', externalUserId })) continue;
        actions.push({
          entity: { kind: 'externalIdIsUserId', externalUserId },
          item: { ConditionCheck: { TableName: table, Key: key, ConditionExpression: 'attribute_not_exists(PK)' } },
        });
      }
    }
    if (plan.roles) {
      for (const role of new Set(plan.roles.assignments.map((a) => a.role))) {
        // The same role checked for two users of a group is one check.
        if (checkedRoles.has(role)) continue;
        checkedRoles.add(role);
        actions.push({ entity: { kind: 'role', role }, item: roleExistsCheck(appId, role) });
      }
      for (const { role, tenantId } of plan.roles.assignments) {
        actions.push({ entity: { kind: 'internal' }, item: userRolePut(appId, plan.roles.userId, tenantId, role) });
      }
    }
    if (plan.totpDevices) {
      for (const device of plan.totpDevices.devices) {
        actions.push({
          entity: { kind: 'totpDevice', deviceName: device.deviceName },
          item: totpDevicePut(appId, plan.totpDevices.userId, device),
        });
      }
    }
    if (plan.metadata) {
      if (metadataUsers.has(plan.metadata.userId)) duplicates.push({ kind: 'metadata' });
      metadataUsers.add(plan.metadata.userId);
    }
    for (let i = firstAction; i < actions.length; i++) planOf[i] = planIndex;
    for (let i = firstDuplicate; i < duplicates.length; i++) duplicatePlans.push(planIndex);
  }

  const changes = plans.flatMap((p) => p.changes);
  const firstUser = changes.find((c) => c.after ?? c.before);
  const shard =
    plans.length > 1 && firstUser ? shardOf((firstUser.after ?? firstUser.before)?.userId ?? '') : undefined;
  for (const { key, deltas } of counterDeltas(appId, changes, shard).values()) {
    const names: Record<string, string> = {};
    const values: Record<string, number> = {};
    const parts: string[] = [];
    for (const [mask, delta] of deltas) {
      names[`#m${mask}`] = counterAttribute(mask);
      values[`:m${mask}`] = delta;
      parts.push(`#m${mask} :m${mask}`);
    }
    actions.push({
      entity: { kind: 'internal' },
      item: {
        Update: {
          TableName: table,
          Key: key,
          UpdateExpression: `SET entityType = :e ADD ${parts.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ...values, ':e': 'USER_COUNTER' },
        },
      },
    });
  }
  [...plans.flatMap((p) => p.extra ?? []), ...groupExtra].forEach((item, index) => {
    actions.push({ entity: { kind: 'extra', index }, item: item as TransactWriteItem });
  });
  return { actions, duplicates, planOf, duplicatePlans };
}

const metadataActions = (plans: readonly UserWritePlan[]) => plans.filter((p) => p.metadata).length;

function countActions(appId: string, plan: UserWritePlan): number {
  return countGroupActions(appId, [plan]);
}

function countGroupActions(appId: string, plans: readonly UserWritePlan[], extra: readonly object[] = []): number {
  return buildSyncActions(appId, plans, extra).actions.length + metadataActions(plans);
}

async function write(appId: string, plan: UserWritePlan): Promise<WriteResult> {
  return writeGroup(appId, [plan]);
}

async function writeGroup(
  appId: string,
  plans: readonly UserWritePlan[],
  extra: readonly object[] = [],
): Promise<WriteResult> {
  const built = buildSyncActions(appId, plans, extra);
  if (built.duplicates.length > 0) {
    return { ok: false, retryable: false, failed: built.duplicates, plans: built.duplicatePlans };
  }
  const actions = [...built.actions];
  const planOf = [...built.planOf];
  for (const [planIndex, plan] of plans.entries()) {
    if (!plan.metadata) continue;
    const put = await metadataMergeWrite(appId, plan.metadata.userId, plan.metadata.update);
    planOf[actions.length] = planIndex;
    actions.push({ entity: { kind: 'metadata' }, item: put });
  }
  if (actions.length === 0) return { ok: true };
  try {
    await getDocumentClient().send(
      new TransactWriteCommand({
        TransactItems: actions.map((a) => a.item),
        // Makes the SDK's own retries of this call idempotent (a lost response is not a conflict).
        ClientRequestToken: randomUUID(),
      }),
    );
    return { ok: true };
  } catch (error) {
    const cancellation = classifyCancellation(error);
    if (cancellation.kind === 'transient') return { ok: false, retryable: true };
    if (cancellation.kind === 'conditions') {
      const failed = cancellation.failedIndexes.map((i): WriteEntity => actions[i]?.entity ?? { kind: 'internal' });
      return { ok: false, retryable: false, failed, plans: cancellation.failedIndexes.map((i) => planOf[i]) };
    }
    if (cancellation.kind === 'none' && isTransientError(error)) return { ok: false, retryable: true };
    throw error;
  }
}

// ------------------------------------------------------------------------------------------------
// Reads

async function batchGet(keys: readonly Key[]): Promise<Record<string, unknown>[]> {
  const table = tableName();
  const found: Record<string, unknown>[] = [];
  const unique = [...new Map(keys.map((k) => [keyString(k), k])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Record<string, unknown>[] = unique.slice(i, i + 100);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
      if (attempt > 10) throw new Error('DynamoDB kept returning unprocessed keys');
      const out = await getDocumentClient().send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
      );
      found.push(...(out.Responses?.[table] ?? []));
      pending = (out.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
  }
  return found;
}

async function getItem(key: Key): Promise<Record<string, unknown> | undefined> {
  const out = await getDocumentClient().send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
  );
  return out.Item;
}

/** USER items of these user ids, in the given order (missing ones skipped). */
async function getUsers(appId: string, userIds: readonly string[]): Promise<UserRecord[]> {
  const items = await batchGet(userIds.map((id) => ({ PK: userPartition(appId, id), SK: USER_SK })));
  const byId = new Map<string, UserRecord>();
  for (const item of items) {
    const record = recordFromItem(item);
    if (record) byId.set(record.userId, record);
  }
  return [...new Set(userIds)].flatMap((id) => {
    const record = byId.get(id);
    return record ? [record] : [];
  });
}

/** Access patterns "user by id" (GetItem USER) and "primary of a linked recipe user" (GetItem LINK). */
async function getUserBySuperTokensId(appId: string, superTokensId: string): Promise<UserRecord | undefined> {
  const items = await batchGet([
    { PK: userPartition(appId, superTokensId), SK: USER_SK },
    { PK: userPartition(appId, superTokensId), SK: LINK_SK },
  ]);
  const user = items.find((i) => i.SK === USER_SK);
  if (user) return recordFromItem(user);
  const link = items.find((i) => i.SK === LINK_SK);
  if (!link) return undefined;
  return recordFromItem(await getItem({ PK: userPartition(appId, link.userId as string), SK: USER_SK }));
}

/** Access pattern "mapping by external id": GetItem `APP#<a>#EXT#<ext>` / `MAP`. */
async function getMappingByExternalId(appId: string, externalUserId: string): Promise<UserIdMapping | undefined> {
  const item = await getItem({ PK: externalIdPartition(appId, externalUserId), SK: EXTERNAL_ID_SK });
  if (!item) return undefined;
  return {
    superTokensUserId: item.superTokensUserId as string,
    externalUserId: item.externalUserId as string,
    ...(typeof item.externalUserIdInfo === 'string' ? { externalUserIdInfo: item.externalUserIdInfo } : {}),
  };
}

/** Access pattern "emailpassword user by email in a tenant": GetItem email partition / `UNIQUE#emailpassword`. */
async function getEmailPasswordUser(appId: string, tenantId: string, email: string) {
  const item = await getItem({ PK: emailPartition(appId, tenantId, email), SK: uniqueSortKey('emailpassword') });
  if (!item) return undefined;
  const recipeUserId = item.recipeUserId as string;
  const user = await getUserBySuperTokensId(appId, recipeUserId);
  if (!user) return undefined;
  return { user, recipeUserId };
}

/** Access pattern "account-info owners": Query one account-info partition (UNIQUE#… and REF#… items). */
async function ownersOf(pk: string): Promise<string[]> {
  const owners: string[] = [];
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ConsistentRead: true,
  });
  for (const item of items) if (item.SK !== PRIMARY_SK) owners.push(item.userId as string);
  return owners;
}

async function usersByAccountInfo(appId: string, tenantId: string, query: AccountInfoQuery): Promise<UserRecord[][]> {
  const partitions: string[] = [];
  if (query.email !== undefined) partitions.push(emailPartition(appId, tenantId, query.email));
  if (query.phoneNumber !== undefined) partitions.push(phonePartition(appId, tenantId, query.phoneNumber));
  if (query.thirdParty) {
    partitions.push(thirdPartyPartition(appId, tenantId, query.thirdParty.id, query.thirdParty.userId));
  }
  return Promise.all(partitions.map(async (pk) => getUsers(appId, await ownersOf(pk))));
}

const POSITION_SHAPE = /^(\d{15})#(.+)$/;

/**
 * Access pattern "users of a tenant by time joined": Query GSI1 `APP#<a>#T#<t>#USERS`, SK after
 * the previous page's last entry, filtered by recipe mask; then BatchGet of the USER items.
 */
async function listUsers(
  appId: string,
  tenantId: string,
  query: ListUsersQuery,
): Promise<{ users: UserRecord[]; next?: UserPosition }> {
  const ascending = query.order === 'ASC';
  const entries: { userId: string; sk: string }[] = [];
  let startKey: Record<string, unknown> | undefined;
  const values: Record<string, unknown> = { ':pk': tenantUsersIndexPartition(appId, tenantId) };
  let condition = 'GSI1PK = :pk';
  if (query.after) {
    values[':after'] = tenantUsersIndexSortKey(query.after.timeJoined, query.after.userId);
    condition += ascending ? ' AND GSI1SK > :after' : ' AND GSI1SK < :after';
  }
  let filter: string | undefined;
  if (query.masks) {
    query.masks.forEach((mask, i) => {
      values[`:m${i}`] = mask;
    });
    filter = `recipeMask IN (${query.masks.map((_, i) => `:m${i}`).join(', ')})`;
    if (query.masks.length === 0) return { users: [] };
  }
  do {
    const out = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: condition,
        FilterExpression: filter,
        ExpressionAttributeValues: values,
        ProjectionExpression: 'userId, GSI1SK',
        ScanIndexForward: ascending,
        Limit: Math.min(1000, query.limit + 1),
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) entries.push({ userId: item.userId as string, sk: item.GSI1SK as string });
    startKey = out.LastEvaluatedKey;
  } while (startKey && entries.length <= query.limit);
  const page = entries.slice(0, query.limit);
  const users = await getUsers(
    appId,
    page.map((e) => e.userId),
  );
  const last = page[page.length - 1];
  const match = last && entries.length > query.limit ? POSITION_SHAPE.exec(last.sk) : null;
  return match ? { users, next: { timeJoined: Number(match[1]), userId: match[2] as string } } : { users };
}

/** Access pattern "users count": BatchGet of the 16 counter shards of a tenant (or of the app). */
async function countUsers(appId: string, tenantId: string | undefined, masks: readonly number[]): Promise<number> {
  const items = await batchGet(counterKeys(appId, tenantId));
  let total = 0;
  for (const item of items)
    for (const mask of masks) total += (item[counterAttribute(mask)] as number | undefined) ?? 0;
  return total;
}

async function purgeUserIdData(appId: string, userIds: readonly string[]): Promise<void> {
  for (const userId of new Set(userIds)) await purgeUserData(appId, userId);
}

export const userStore: UserStore = {
  getUserBySuperTokensId,
  getMappingByExternalId,
  getEmailPasswordUser,
  usersByAccountInfo,
  listUsers,
  countUsers,
  countActions,
  countGroupActions,
  write,
  writeGroup,
  purgeUserIdData,
};

// ------------------------------------------------------------------------------------------------
// App deletion

/**
 * App-deletion purger: every user of the app (Query of the GSI2 shards `APP#<a>#USERS#<n>`) with
 * all its derived items and its user partitions, then the counter shards. Never a Scan.
 */
export async function purgeAppUsers(appId: string): Promise<void> {
  for (let shard = 0; shard < USER_COUNTER_SHARDS; shard++) {
    const pages = queryPages({
      TableName: tableName(),
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk',
      ExpressionAttributeValues: { ':pk': appUsersIndexPartition(appId, shard) },
    });
    for await (const page of pages) {
      const keys: Key[] = [];
      for (const item of page) {
        const record = recordFromItem(item);
        if (!record) continue;
        // The USER item last, so an interrupted purge still finds this user next time.
        const derived = deriveItems(appId, record).map((d) => d.key);
        keys.push(...derived.filter((k) => k.SK !== USER_SK), ...derived.filter((k) => k.SK === USER_SK));
      }
      await deleteKeys(keys);
    }
  }
  for (let shard = 0; shard < USER_COUNTER_SHARDS; shard++) await purgePartition(userCounterPartition(appId, shard));
}

/**
 * For tenant deletion: takes the tenant out of every user in it (Query of the tenant's GSI1
 * partition, then one guarded rewrite per user, which also frees the tenant's account infos and
 * moves the counters). Users left without tenants stay in the app, as in the reference.
 */
export async function removeTenantFromUsers(appId: string, tenantId: string): Promise<void> {
  const rounds = new Map<string, number>();
  for (;;) {
    const out = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': tenantUsersIndexPartition(appId, tenantId) },
        ProjectionExpression: 'userId',
        Limit: 100,
      }),
    );
    // An entry seen in 3 rounds is stale index data or a user that cannot be rewritten: stop.
    const userIds = (out.Items ?? []).map((i) => i.userId as string).filter((id) => (rounds.get(id) ?? 0) < 3);
    if (userIds.length === 0) return;
    for (const id of userIds) rounds.set(id, (rounds.get(id) ?? 0) + 1);
    for (const user of await getUsers(appId, userIds)) {
      for (let attempt = 0; attempt < 5; attempt++) {
        const current = attempt === 0 ? user : await getUserBySuperTokensId(appId, user.userId);
        if (!current?.loginMethods.some((lm) => lm.tenantIds.includes(tenantId))) break;
        const after: UserRecord = {
          ...current,
          loginMethods: current.loginMethods.map((lm) => ({
            ...lm,
            tenantIds: lm.tenantIds.filter((t) => t !== tenantId),
          })),
          version: current.version + 1,
        };
        const result = await write(appId, { changes: [{ before: current, after }] });
        if (result.ok) break;
      }
    }
    // GSI1 is eventually consistent: give it a moment before looking again.
    await new Promise((r) => setTimeout(r, 50));
  }
}
