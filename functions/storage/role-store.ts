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
import type { AssignOutcome, RoleStore, RoleStores, UnassignOutcome } from '#functions/domain/roles/ports.js';
import { appPartition } from './keys/apps.js';
import { userDataIndexPartitionOf } from './keys/metadata.js';
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
import {
  allShards,
  batchDeleteAll,
  defineEntity,
  deleteItem,
  getItem,
  type Key,
  queryAll,
  sleep,
  type Table,
  type TransactItem,
  transact,
  updateItem,
} from './kit/index.js';

/** GSI2 is eventually consistent: a role removal sweeps its assignments again after this pause. */
const SECOND_SWEEP_DELAY_MS = 1000;

const roleEntity = defineEntity({
  type: 'ROLE',
  subject: "The role's permission set",
  key: (r: { appId: string; role: string }) => ({ PK: appPartition(r.appId), SK: roleSortKey(r.role) }),
});

type Assignment = { appId: string; userId: string; tenantId: string; role: string };
const assignmentEntity = defineEntity({
  type: 'USER_ROLE',
  key: (a: Assignment) => ({ PK: userPartition(a.appId, a.userId), SK: userRoleSortKey(a.tenantId, a.role) }),
  indexes: {
    /** By role: users with a role (in a tenant), all assignments of a role. */
    GSI2: {
      pk: (a: Assignment) => roleMembersIndexPartition(a.appId, a.role, roleMemberShard(a.userId)),
      sk: (a: Assignment) => roleMembersIndexSortKey(a.tenantId, a.userId),
    },
    /** The app's user data (app deletion). */
    GSI3: {
      pk: (a: Assignment) => userDataIndexPartitionOf(a.appId, a.userId),
      sk: (a: Assignment) => userRoleSortKey(a.tenantId, a.role),
    },
  },
});

/**
 * A transaction element that fails (ConditionalCheckFailed) unless `role` exists in the app.
 * Pair it with {@link userRolePut} so an assignment never outlives a missing role.
 * `role` must already be trimmed.
 */
export function roleExistsCheck(table: Table, appId: string, role: string): TransactItem {
  return {
    ConditionCheck: {
      TableName: table.name,
      Key: roleEntity.key({ appId, role }),
      ConditionExpression: 'attribute_exists(PK)',
    },
  };
}

/**
 * An idempotent Put of the assignment of `role` to `userId` in `tenantId`, with its by-role
 * (GSI2) and user-data (GSI3) index keys. No condition: re-importing the same assignment is a
 * no-op apart from `createdAt`. Does not check the role; add {@link roleExistsCheck}.
 */
export function userRolePut(table: Table, appId: string, userId: string, tenantId: string, role: string): TransactItem {
  const a = { appId, userId, tenantId, role };
  return {
    Put: {
      TableName: table.name,
      Item: assignmentEntity.item(a, { userId, tenantId, role, createdAt: Date.now() }, { GSI2: a, GSI3: a }),
    },
  };
}

/** Access pattern "roles of an app": Query `APP#<a>`, SK begins_with `ROLE#` (sorted by name). */
async function listRoleNames(table: Table, appId: string): Promise<string[]> {
  const items = await queryAll(
    table,
    { pk: appPartition(appId), sk: { beginsWith: ROLE_SORT_PREFIX } },
    { attributes: ['role'], consistent: true },
  );
  return items.map((item) => item.role as string);
}

/** Keys of every assignment of `role` (all tenants, or one), by Query on each GSI2 shard. */
async function assignmentsOfRole(
  table: Table,
  appId: string,
  role: string,
  tenantId?: string,
): Promise<{ PK: string; SK: string; userId: string }[]> {
  const shards = allShards(ROLE_MEMBER_SHARDS).map((shard) =>
    queryAll(
      table,
      {
        index: 'GSI2',
        pk: roleMembersIndexPartition(appId, role, shard),
        ...(tenantId === undefined ? {} : { sk: { beginsWith: roleMembersTenantPrefix(tenantId) } }),
      },
      { attributes: ['PK', 'SK', 'userId'] },
    ),
  );
  return (await Promise.all(shards)).flat() as { PK: string; SK: string; userId: string }[];
}

const keysOf = (found: readonly { PK: string; SK: string }[]): Key[] => found.map(({ PK, SK }) => ({ PK, SK }));

/** Runs a role check + one write; returns which of the two failed its condition. */
async function withRoleCheck(
  table: Table,
  appId: string,
  role: string,
  write: TransactItem,
): Promise<{ roleMissing: boolean; writeFailed: boolean }> {
  const result = await transact(table, [roleExistsCheck(table, appId, role), write]);
  if (result.ok) return { roleMissing: false, writeFailed: false };
  return { roleMissing: result.failedIndexes.includes(0), writeFailed: result.failedIndexes.includes(1) };
}

/**
 * Deletes every assignment made in one tenant (for tenant removal): per role of the app, Query
 * its GSI2 shards with SK begins_with `<t>#`.
 */
export async function purgeTenantRoleAssignments(table: Table, appId: string, tenantId: string): Promise<void> {
  for (const role of await listRoleNames(table, appId)) {
    await batchDeleteAll(table, keysOf(await assignmentsOfRole(table, appId, role, tenantId)));
  }
}

/** The roles use cases' storage port for one table, bound to one app by `forApp`. */
export function createRoleStore(table: Table): RoleStores {
  const sweep = async (appId: string, role: string): Promise<number> => {
    const found = await assignmentsOfRole(table, appId, role);
    await batchDeleteAll(table, keysOf(found));
    return found.length;
  };
  const forApp = (appId: string): RoleStore => ({
    listRoleNames: () => listRoleNames(table, appId),

    /** Creates the role if missing and adds `permissions` to its set, in one atomic UpdateItem. */
    async createRoleOrAddPermissions(role, permissions) {
      const unique = [...new Set(permissions)];
      const update = {
        // createdAt is kept on an existing role; permissions are added to the set.
        UpdateExpression: `SET #role = :role, entityType = :entity, createdAt = if_not_exists(createdAt, :now)${
          unique.length > 0 ? ' ADD #permissions :permissions' : ''
        }`,
        ExpressionAttributeNames: { '#role': 'role', ...(unique.length > 0 ? { '#permissions': 'permissions' } : {}) },
        ExpressionAttributeValues: {
          ':role': role,
          ':entity': roleEntity.type,
          ':now': Date.now(),
          ...(unique.length > 0 ? { ':permissions': new Set(unique) } : {}),
        },
      };
      const out = await updateItem(table, roleEntity.key({ appId, role }), update, undefined, {
        returnOld: true,
        subject: roleEntity.subject,
      });
      return out.old === undefined;
    },

    /** Access pattern "role by name". Permissions sorted; undefined if unknown. */
    async getRolePermissions(role) {
      const item = await getItem(table, roleEntity.key({ appId, role }));
      if (!item) return undefined;
      return [...((item.permissions as Set<string> | undefined) ?? [])].sort();
    },

    /**
     * Deletes the role and every assignment of it (in all tenants). The role item goes first, so
     * assignments written from then on fail their {@link roleExistsCheck}; the assignments are
     * then found through GSI2 and deleted, and swept once more after a pause to catch index
     * entries that were still propagating. Idempotent: calling it again finishes an interrupted
     * removal. Returns whether the role existed.
     */
    async deleteRoleAndAssignments(role) {
      const { existed } = await deleteItem(table, roleEntity.key({ appId, role }));
      const swept = await sweep(appId, role);
      if (existed || swept > 0) {
        await sleep(SECOND_SWEEP_DELAY_MS);
        await sweep(appId, role);
      }
      return existed;
    },

    /**
     * Removes permissions from the role's set in one UpdateItem on condition that the role exists
     * (DELETE from the set; REMOVE the set for all of them).
     */
    async removeRolePermissions(role, permissions) {
      const unique = permissions === undefined ? undefined : [...new Set(permissions)];
      if (unique?.length === 0) return (await getItem(table, roleEntity.key({ appId, role }))) !== undefined;
      const update =
        unique === undefined
          ? { UpdateExpression: 'REMOVE #permissions', ExpressionAttributeNames: { '#permissions': 'permissions' } }
          : {
              UpdateExpression: 'DELETE #permissions :permissions',
              ExpressionAttributeNames: { '#permissions': 'permissions' },
              ExpressionAttributeValues: { ':permissions': new Set(unique) },
            };
      const out = await updateItem(
        table,
        roleEntity.key({ appId, role }),
        { ExpressionAttributeValues: {}, ...update },
        { expression: 'attribute_exists(PK)' },
        { subject: roleEntity.subject },
      );
      return out.ok;
    },

    /**
     * Access pattern "roles with a permission": Query `APP#<a>`, SK begins_with `ROLE#`, filtered
     * on `contains(permissions, :p)` (reads every role of the app, returns the matching names).
     */
    async rolesWithPermission(permission) {
      const items = await queryAll(
        table,
        { pk: appPartition(appId), sk: { beginsWith: ROLE_SORT_PREFIX } },
        {
          attributes: ['role'],
          consistent: true,
          filter: {
            expression: 'contains(#permissions, :permission)',
            names: { '#permissions': 'permissions' },
            values: { ':permission': permission },
          },
        },
      );
      return items.map((item) => item.role as string);
    },

    /** Access pattern "users with a role in a tenant": GSI2 shards, SK begins_with `<t>#`. Sorted. */
    async listRoleUsers(tenantId, role) {
      return (await assignmentsOfRole(table, appId, role, tenantId)).map((a) => a.userId).sort();
    },

    /** Access pattern "roles of a user id in a tenant": `APP#<a>#U#<userId>`, SK begins_with `ROLE#<t>#`. */
    async listUserRoles(tenantId, userId) {
      const items = await queryAll(
        table,
        { pk: userPartition(appId, userId), sk: { beginsWith: userRoleSortPrefix(tenantId) } },
        { attributes: ['role'], consistent: true },
      );
      return items.map((item) => item.role as string);
    },

    /** Assigns `role` to `userId` in `tenantId` atomically with the role's existence check. */
    async assignRole(tenantId, userId, role): Promise<AssignOutcome> {
      const put = userRolePut(table, appId, userId, tenantId, role).Put;
      const result = await withRoleCheck(table, appId, role, {
        Put: { ...(put as NonNullable<typeof put>), ConditionExpression: 'attribute_not_exists(PK)' },
      });
      if (result.roleMissing) return 'UNKNOWN_ROLE';
      return result.writeFailed ? 'ALREADY_ASSIGNED' : 'ASSIGNED';
    },

    /** Removes the assignment atomically with the role's existence check. */
    async unassignRole(tenantId, userId, role): Promise<UnassignOutcome> {
      const result = await withRoleCheck(table, appId, role, {
        Delete: {
          TableName: table.name,
          Key: assignmentEntity.key({ appId, userId, tenantId, role }),
          ConditionExpression: 'attribute_exists(PK)',
        },
      });
      if (result.roleMissing) return 'UNKNOWN_ROLE';
      return result.writeFailed ? 'NOT_ASSIGNED' : 'REMOVED';
    },
  });
  return { forApp };
}
