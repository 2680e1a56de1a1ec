/**
 * Roles (app level, with a permission set) and their assignments to user ids per tenant.
 *
 * Items (key builders in keys/roles.ts):
 * - role: `APP#<a>` / `ROLE#<role>`, attributes `role`, `permissions` (string set, absent when
 *   empty), `createdAt`.
 * - assignment: `APP#<a>#U#<userId>` / `ROLE#<t>#<role>`, attributes `userId`, `tenantId`, `role`,
 *   `createdAt`; GSI2 `APP#<a>#ROLE#<shard>#<role>` / `<t>#<userId>` (by role); GSI3 user-data entry
 *   (app deletion).
 */

import {
  DeleteCommand,
  GetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AssignOutcome, RoleStore, UnassignOutcome } from '#functions/domain/roles/service.js';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { deleteKeys } from './app-purge.js';
import { appPartition } from './keys/apps.js';
import { userDataIndexKeys } from './keys/metadata.js';
import {
  ROLE_MEMBER_SHARDS,
  ROLE_SORT_PREFIX,
  roleMemberShard,
  roleMembersIndexPartition,
  roleMembersIndexSortKey,
  roleMembersTenantPrefix,
  roleSortKey,
  userPartition,
  userRoleSortKey,
  userRoleSortPrefix,
} from './keys/roles.js';
import { queryAll } from './query.js';

/** One element of a TransactWriteItems request (what the import builds its per-user transaction from). */
export type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const ROLE_ENTITY = 'ROLE';
const ASSIGNMENT_ENTITY = 'USER_ROLE';
/** GSI2 is eventually consistent: a role removal sweeps its assignments again after this pause. */
const SECOND_SWEEP_DELAY_MS = 1000;

const roleKey = (appId: string, role: string) => ({ PK: appPartition(appId), SK: roleSortKey(role) });
const assignmentKey = (appId: string, userId: string, tenantId: string, role: string) => ({
  PK: userPartition(appId, userId),
  SK: userRoleSortKey(tenantId, role),
});

function assignmentItem(appId: string, userId: string, tenantId: string, role: string, now: number) {
  const key = assignmentKey(appId, userId, tenantId, role);
  return {
    ...key,
    entityType: ASSIGNMENT_ENTITY,
    userId,
    tenantId,
    role,
    createdAt: now,
    GSI2PK: roleMembersIndexPartition(appId, role, roleMemberShard(userId)),
    GSI2SK: roleMembersIndexSortKey(tenantId, userId),
    ...userDataIndexKeys(appId, userId, key.SK),
  };
}

/**
 * A transaction element that fails (ConditionalCheckFailed) unless `role` exists in the app.
 * Pair it with {@link userRolePut} so an assignment never outlives a missing role.
 * `role` must already be trimmed.
 */
export function roleExistsCheck(appId: string, role: string): TransactWriteItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: roleKey(appId, role),
      ConditionExpression: 'attribute_exists(PK)',
    },
  };
}

/**
 * An idempotent Put of the assignment of `role` to `userId` in `tenantId`, with its by-role
 * (GSI2) and user-data (GSI3) index keys. No condition: re-importing the same assignment is a
 * no-op apart from `createdAt`. Does not check the role; add {@link roleExistsCheck}.
 */
export function userRolePut(appId: string, userId: string, tenantId: string, role: string): TransactWriteItem {
  return { Put: { TableName: tableName(), Item: assignmentItem(appId, userId, tenantId, role, Date.now()) } };
}

/** Access pattern "roles of an app": Query `APP#<a>`, SK begins_with `ROLE#` (sorted by name). */
export async function listRoleNames(appId: string): Promise<string[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': appPartition(appId), ':sk': ROLE_SORT_PREFIX },
    ExpressionAttributeNames: { '#role': 'role' },
    ProjectionExpression: '#role',
    ConsistentRead: true,
  });
  return items.map((item) => item.role as string);
}

/**
 * Creates the role if missing and adds `permissions` to its set, in one atomic UpdateItem.
 * Returns whether the role was created by this call.
 */
export async function createRoleOrAddPermissions(
  appId: string,
  role: string,
  permissions: readonly string[],
): Promise<boolean> {
  const unique = [...new Set(permissions)];
  const out = await getDocumentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: roleKey(appId, role),
      UpdateExpression: `SET #role = :role, entityType = :entity, createdAt = if_not_exists(createdAt, :now)${
        unique.length > 0 ? ' ADD #permissions :permissions' : ''
      }`,
      ExpressionAttributeNames: { '#role': 'role', ...(unique.length > 0 ? { '#permissions': 'permissions' } : {}) },
      ExpressionAttributeValues: {
        ':role': role,
        ':entity': ROLE_ENTITY,
        ':now': Date.now(),
        ...(unique.length > 0 ? { ':permissions': new Set(unique) } : {}),
      },
      ReturnValues: 'ALL_OLD',
    }),
  );
  return out.Attributes === undefined;
}

/** Access pattern "role by name": GetItem `APP#<a>` / `ROLE#<role>`. Permissions sorted; undefined if unknown. */
export async function getRolePermissions(appId: string, role: string): Promise<string[] | undefined> {
  const out = await getDocumentClient().send(
    new GetCommand({ TableName: tableName(), Key: roleKey(appId, role), ConsistentRead: true }),
  );
  if (!out.Item) return undefined;
  const permissions = out.Item.permissions as Set<string> | undefined;
  return [...(permissions ?? [])].sort();
}

/** Keys of every assignment of `role` (all tenants, or one), by Query on each GSI2 shard. */
async function assignmentsOfRole(
  appId: string,
  role: string,
  tenantId?: string,
): Promise<{ PK: string; SK: string; userId: string }[]> {
  const shards = Array.from({ length: ROLE_MEMBER_SHARDS }, (_, shard) =>
    queryAll({
      TableName: tableName(),
      IndexName: 'GSI2',
      KeyConditionExpression: tenantId === undefined ? 'GSI2PK = :pk' : 'GSI2PK = :pk AND begins_with(GSI2SK, :tenant)',
      ExpressionAttributeValues: {
        ':pk': roleMembersIndexPartition(appId, role, shard),
        ...(tenantId === undefined ? {} : { ':tenant': roleMembersTenantPrefix(tenantId) }),
      },
      ProjectionExpression: 'PK, SK, userId',
    }),
  );
  return (await Promise.all(shards)).flat() as { PK: string; SK: string; userId: string }[];
}

async function sweepAssignments(appId: string, role: string): Promise<number> {
  const found = await assignmentsOfRole(appId, role);
  await deleteKeys(found.map(({ PK, SK }) => ({ PK, SK })));
  return found.length;
}

/**
 * Deletes the role and every assignment of it (in all tenants). The role item goes first, so
 * assignments written from then on fail their {@link roleExistsCheck}; the assignments are then
 * found through GSI2 and deleted, and swept once more after a pause to catch index entries that
 * were still propagating. Idempotent: calling it again finishes an interrupted removal.
 * Returns whether the role existed.
 */
export async function deleteRoleAndAssignments(appId: string, role: string): Promise<boolean> {
  const out = await getDocumentClient().send(
    new DeleteCommand({ TableName: tableName(), Key: roleKey(appId, role), ReturnValues: 'ALL_OLD' }),
  );
  const existed = out.Attributes !== undefined;
  const swept = await sweepAssignments(appId, role);
  if (existed || swept > 0) {
    await new Promise((resolve) => setTimeout(resolve, SECOND_SWEEP_DELAY_MS));
    await sweepAssignments(appId, role);
  }
  return existed;
}

/** Access pattern "users with a role in a tenant": Query GSI2 shards, SK begins_with `<t>#`. Sorted. */
export async function listRoleUsers(appId: string, tenantId: string, role: string): Promise<string[]> {
  return (await assignmentsOfRole(appId, role, tenantId)).map((a) => a.userId).sort();
}

/** Access pattern "roles of a user id in a tenant": Query `APP#<a>#U#<userId>`, SK begins_with `ROLE#<t>#`. */
export async function listUserRoles(appId: string, tenantId: string, userId: string): Promise<string[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': userPartition(appId, userId), ':sk': userRoleSortPrefix(tenantId) },
    ExpressionAttributeNames: { '#role': 'role' },
    ProjectionExpression: '#role',
    ConsistentRead: true,
  });
  return items.map((item) => item.role as string);
}

type CancellationReasons = { Code?: string }[];

/** Runs a two-element transaction (role check + write); returns which elements failed their condition. */
async function transactWithRoleCheck(
  items: TransactWriteItem[],
): Promise<{ roleMissing: boolean; writeFailed: boolean }> {
  for (let attempt = 0; ; attempt++) {
    try {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: items }));
      return { roleMissing: false, writeFailed: false };
    } catch (error) {
      const reasons = (error as { name?: string; CancellationReasons?: CancellationReasons }).CancellationReasons;
      if ((error as { name?: string }).name !== 'TransactionCanceledException' || !reasons) throw error;
      const roleMissing = reasons[0]?.Code === 'ConditionalCheckFailed';
      const writeFailed = reasons[1]?.Code === 'ConditionalCheckFailed';
      if (roleMissing || writeFailed) return { roleMissing, writeFailed };
      // Cancelled by a concurrent transaction on the same items: try again.
      if (attempt >= 4) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
    }
  }
}

/** Assigns `role` to `userId` in `tenantId` atomically with the role's existence check. */
export async function assignRole(
  appId: string,
  tenantId: string,
  userId: string,
  role: string,
): Promise<AssignOutcome> {
  const put = userRolePut(appId, userId, tenantId, role);
  const result = await transactWithRoleCheck([
    roleExistsCheck(appId, role),
    { Put: { ...put.Put!, ConditionExpression: 'attribute_not_exists(PK)' } },
  ]);
  if (result.roleMissing) return 'UNKNOWN_ROLE';
  return result.writeFailed ? 'ALREADY_ASSIGNED' : 'ASSIGNED';
}

/** Removes the assignment atomically with the role's existence check. */
export async function unassignRole(
  appId: string,
  tenantId: string,
  userId: string,
  role: string,
): Promise<UnassignOutcome> {
  const result = await transactWithRoleCheck([
    roleExistsCheck(appId, role),
    {
      Delete: {
        TableName: tableName(),
        Key: assignmentKey(appId, userId, tenantId, role),
        ConditionExpression: 'attribute_exists(PK)',
      },
    },
  ]);
  if (result.roleMissing) return 'UNKNOWN_ROLE';
  return result.writeFailed ? 'NOT_ASSIGNED' : 'REMOVED';
}

/**
 * Deletes every assignment made in one tenant (for tenant removal): per role of the app, Query
 * its GSI2 shards with SK begins_with `<t>#`.
 */
export async function purgeTenantRoleAssignments(appId: string, tenantId: string): Promise<void> {
  for (const role of await listRoleNames(appId)) {
    const found = await assignmentsOfRole(appId, role, tenantId);
    await deleteKeys(found.map(({ PK, SK }) => ({ PK, SK })));
  }
}

/** The DynamoDB implementation of the roles use cases' storage port. */
export const roleStore: RoleStore = {
  createRoleOrAddPermissions,
  deleteRoleAndAssignments,
  listRoleNames,
  getRolePermissions,
  listRoleUsers,
  assignRole,
  unassignRole,
  listUserRoles,
};
