/**
 * User roles: app-level roles with a set of permissions, assigned to user ids per tenant.
 * Statuses and messages are the reference core's (`createdNewRole`, `didRoleExist`,
 * `didUserAlreadyHaveRole`, `didUserHaveRole`, `UNKNOWN_ROLE_ERROR`). The requests are parsed by
 * the schemas of ./input.ts (before the app/tenant existence check, as the reference orders it);
 * each use case takes the storage port.
 */
import { BadRequestError } from '#functions/shared/errors.js';
import { fitsUserId } from '../metadata/user-id.js';
import type { CreateRoleInput, UserRoleInput } from './input.js';
import type { RoleStore } from './ports.js';

export type { RoleStore } from './ports.js';

/**
 * Largest permission set of one role (the UTF-8 lengths of its permissions added up): the role's
 * DynamoDB item holds the set and is limited to 400 KB. The reference keeps a row per permission
 * and has no such limit.
 */
const MAX_ROLE_PERMISSIONS_BYTES = 350_000;

const permissionBytes = (permissions: Iterable<string>) => {
  let total = 0;
  for (const permission of permissions) total += Buffer.byteLength(permission, 'utf8');
  return total;
};

function tooManyPermissions(): never {
  throw new BadRequestError(
    `The permissions of a role are too large. Max size is ${MAX_ROLE_PERMISSIONS_BYTES} bytes.`,
  );
}

/**
 * Creates the role or adds permissions to it → `{status:"OK", createdNewRole}`. Permissions that
 * would take the role's set beyond {@link MAX_ROLE_PERMISSIONS_BYTES} are refused (400) and
 * nothing is written.
 */
export async function createRole(store: RoleStore, input: CreateRoleInput) {
  const added = new Set(input.permissions);
  if (permissionBytes(added) > MAX_ROLE_PERMISSIONS_BYTES) tooManyPermissions();
  if (added.size > 0) {
    const current = (await store.getRolePermissions(input.role)) ?? [];
    if (permissionBytes(new Set([...current, ...added])) > MAX_ROLE_PERMISSIONS_BYTES) tooManyPermissions();
  }
  const createdNewRole = await store.createRoleOrAddPermissions(input.role, input.permissions);
  return { status: 'OK', createdNewRole };
}

/** Deletes the role and all its assignments (every tenant) → `{status:"OK", didRoleExist}`. */
export async function removeRole(store: RoleStore, input: { role: string }) {
  const didRoleExist = await store.deleteRoleAndAssignments(input.role);
  return { status: 'OK', didRoleExist };
}

/** `GET /recipe/roles` → `{status:"OK", roles}`. */
export async function listRoles(store: RoleStore) {
  return { status: 'OK', roles: await store.listRoleNames() };
}

/** → `{status:"OK", permissions}` or `{status:"UNKNOWN_ROLE_ERROR"}`. */
export async function getRolePermissions(store: RoleStore, input: { role: string }) {
  const permissions = await store.getRolePermissions(input.role);
  if (permissions === undefined) return { status: 'UNKNOWN_ROLE_ERROR' };
  return { status: 'OK', permissions };
}

/** `GET /<t>/recipe/role/users?role=` → `{status:"OK", users}` or `{status:"UNKNOWN_ROLE_ERROR"}`. */
export async function getRoleUsers(store: RoleStore, tenantId: string, input: { role: string }) {
  if ((await store.getRolePermissions(input.role)) === undefined) return { status: 'UNKNOWN_ROLE_ERROR' };
  return { status: 'OK', users: await store.listRoleUsers(tenantId, input.role) };
}

/** → `{status:"OK", didUserAlreadyHaveRole}` or `{status:"UNKNOWN_ROLE_ERROR"}`. */
export async function addRoleToUser(store: RoleStore, tenantId: string, input: UserRoleInput) {
  const outcome = await store.assignRole(tenantId, input.userId, input.role);
  if (outcome === 'UNKNOWN_ROLE') return { status: 'UNKNOWN_ROLE_ERROR' };
  return { status: 'OK', didUserAlreadyHaveRole: outcome === 'ALREADY_ASSIGNED' };
}

/** → `{status:"OK", didUserHaveRole}` or `{status:"UNKNOWN_ROLE_ERROR"}`. */
export async function removeRoleFromUser(store: RoleStore, tenantId: string, input: UserRoleInput) {
  const outcome = await store.unassignRole(tenantId, input.userId, input.role);
  if (outcome === 'UNKNOWN_ROLE') return { status: 'UNKNOWN_ROLE_ERROR' };
  return { status: 'OK', didUserHaveRole: outcome === 'REMOVED' };
}

/** → `{status:"OK", roles}` (empty for an unknown id). */
export async function getRolesForUser(store: RoleStore, tenantId: string, input: { userId: string }) {
  if (!fitsUserId(input.userId)) return { status: 'OK', roles: [] };
  return { status: 'OK', roles: await store.listUserRoles(tenantId, input.userId) };
}

/** → `{status:"OK"}` or `{status:"UNKNOWN_ROLE_ERROR"}`; permissions the role does not have are no error. */
export async function removePermissionsFromRole(
  store: RoleStore,
  input: { role: string; permissions?: readonly string[] },
) {
  const existed = await store.removeRolePermissions(input.role, input.permissions);
  return existed ? { status: 'OK' } : { status: 'UNKNOWN_ROLE_ERROR' };
}

/** → `{status:"OK", roles}`: the roles having the permission (none: an empty list). */
export async function getRolesWithPermission(store: RoleStore, input: { permission: string }) {
  return { status: 'OK', roles: await store.rolesWithPermission(input.permission) };
}
