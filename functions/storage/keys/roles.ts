/**
 * Key builders for roles and role assignments (see docs/architecture.md "Data model").
 *
 * - A role is an app-level item: PK `APP#<a>`, SK `ROLE#<role>`, holding its permission set.
 * - An assignment lives in the user id's partition (`APP#<a>#U#<userId>`, SK `ROLE#<t>#<role>`,
 *   builders in keys/users.ts) and carries a GSI2 entry `APP#<a>#ROLE#<shard>#<role>` /
 *   `<t>#<userId>`: "users with a role in a tenant" and "all assignments of a role" are Queries.
 *   The entry is spread over {@link ROLE_MEMBER_SHARDS} partitions (by user id) so a bulk import
 *   that gives every user the same role does not write one hot GSI partition.
 */

import { shardOf } from '../kit/shard.js';
import { appPartition } from './apps.js';

export { userPartition, userRoleSortKey } from './users.js';

export const ROLE_SORT_PREFIX = 'ROLE#';
/** SK of a role definition inside `APP#<appId>`. */
export const roleSortKey = (role: string) => `${ROLE_SORT_PREFIX}${role}`;
/** SK prefix of a user id's assignments in one tenant (tenant ids never contain `#`). */
export const userRoleSortPrefix = (tenantId: string) => `${ROLE_SORT_PREFIX}${tenantId}#`;

/** Number of GSI2 partitions one role's assignments are spread over. */
export const ROLE_MEMBER_SHARDS = 8;
export const roleMemberShard = (userId: string) => shardOf(userId, ROLE_MEMBER_SHARDS);
/** GSI2 partition of one shard of a role's assignments; the shard comes first so any role name is unambiguous. */
export const roleMembersIndexPartition = (appId: string, role: string, shard: number) =>
  `${appPartition(appId)}#ROLE#${shard}#${role}`;
export const roleMembersIndexSortKey = (tenantId: string, userId: string) => `${tenantId}#${userId}`;
/** GSI2 sort-key prefix of one tenant's assignments. */
export const roleMembersTenantPrefix = (tenantId: string) => `${tenantId}#`;
