/**
 * User roles: app-level roles with a set of permissions, assigned to user ids per tenant.
 * Statuses and messages are the reference core's (`createdNewRole`, `didRoleExist`,
 * `didUserAlreadyHaveRole`, `didUserHaveRole`, `UNKNOWN_ROLE_ERROR`). Each use case comes as a
 * `parse…` (request validation, before the app/tenant existence check, as the reference orders
 * it) and the use case itself, which takes the storage port.
 */
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import { has, requiredQuery, requiredString } from '#functions/shared/input.js';
import { checkUserIdLength, fitsUserId } from '../metadata/user-id.js';
import type { RoleStore } from './ports.js';

export type { RoleStore } from './ports.js';

type Body = Readonly<Record<string, unknown>>;
type Query = Readonly<Record<string, string | undefined>>;

/** Longest role or permission name, as the reference's storage column (VARCHAR(255)). */
const MAX_ROLE_LENGTH = 255;
/** Keeps `ROLE#<tenant>#<role>` inside DynamoDB's 1,024-byte sort-key limit for any characters. */
const MAX_ROLE_BYTES = 900;

function tooLong(value: string): boolean {
  return value.length > MAX_ROLE_LENGTH || Buffer.byteLength(value, 'utf8') > MAX_ROLE_BYTES;
}

/** Trims a role name; empty → the core's 400. Too long → 400 (the reference fails with a 500). */
export function normaliseRole(raw: string): string {
  const role = raw.trim();
  if (role.length === 0) throw new BadRequestError("Field name 'role' cannot be an empty String");
  if (tooLong(role)) throw new BadRequestError(`Field name 'role' is too long. Max length is ${MAX_ROLE_LENGTH}.`);
  return role;
}

function roleFromBody(body: Body): string {
  return normaliseRole(requiredString(body, 'role'));
}

function roleFromQuery(query: Query): string {
  return normaliseRole(requiredQuery(query, 'role'));
}

export interface CreateRoleInput {
  readonly role: string;
  readonly permissions: readonly string[];
}

/** `PUT /recipe/role` body: `role` (trimmed), optional `permissions` (null = absent; each trimmed, non-empty). */
export function parseCreateRole(body: Body): CreateRoleInput {
  const role = roleFromBody(body);
  const raw = has(body, 'permissions') ? body.permissions : null;
  if (raw === null) return { role, permissions: [] };
  if (!Array.isArray(raw)) throw new BadRequestError(invalidFieldMessage('permissions'));
  const permissions = raw.map((value) => {
    if (typeof value !== 'string') throw new BadRequestError(invalidFieldMessage('permissions'));
    const permission = value.trim();
    if (permission.length === 0) {
      throw new BadRequestError("Field name 'permissions' cannot contain an empty string");
    }
    if (tooLong(permission)) {
      throw new BadRequestError(
        `Field name 'permissions' contains a permission that is too long. Max length is ${MAX_ROLE_LENGTH}.`,
      );
    }
    return permission;
  });
  return { role, permissions };
}

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

/** `POST /recipe/role/remove` body: `role`. */
export function parseRemoveRole(body: Body): { role: string } {
  return { role: roleFromBody(body) };
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

/** `GET /recipe/role/permissions?role=` query. */
export function parseRoleQuery(query: Query): { role: string } {
  return { role: roleFromQuery(query) };
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

export interface UserRoleInput {
  readonly userId: string;
  readonly role: string;
}

/** `PUT /<t>/recipe/user/role` and `POST /<t>/recipe/user/role/remove` body: `userId` (as given), `role` (trimmed). */
export function parseUserRole(body: Body): UserRoleInput {
  const userId = requiredString(body, 'userId');
  const role = roleFromBody(body);
  checkUserIdLength(userId);
  return { userId, role };
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

/** `GET /<t>/recipe/user/roles?userId=` query (the id is used as given, not trimmed). */
export function parseUserIdQuery(query: Query): { userId: string } {
  return { userId: requiredQuery(query, 'userId') };
}

/** → `{status:"OK", roles}` (empty for an unknown id). */
export async function getRolesForUser(store: RoleStore, tenantId: string, input: { userId: string }) {
  if (!fitsUserId(input.userId)) return { status: 'OK', roles: [] };
  return { status: 'OK', roles: await store.listUserRoles(tenantId, input.userId) };
}

/**
 * `POST /recipe/role/permissions/remove` body: `role` (trimmed), optional `permissions` (absent
 * or null: all of them; each trimmed and non-empty).
 */
export function parseRemovePermissions(body: Body): { role: string; permissions?: readonly string[] } {
  const role = roleFromBody(body);
  const raw = has(body, 'permissions') ? body.permissions : null;
  if (raw === null) return { role };
  if (!Array.isArray(raw)) throw new BadRequestError(invalidFieldMessage('permissions'));
  const permissions = raw.map((value) => {
    if (typeof value !== 'string') throw new BadRequestError(invalidFieldMessage('permissions'));
    const permission = value.trim();
    if (permission.length === 0) throw new BadRequestError("Field name 'permissions' cannot contain an empty string");
    return permission;
  });
  return { role, permissions };
}

/** → `{status:"OK"}` or `{status:"UNKNOWN_ROLE_ERROR"}`; permissions the role does not have are no error. */
export async function removePermissionsFromRole(
  store: RoleStore,
  input: { role: string; permissions?: readonly string[] },
) {
  const existed = await store.removeRolePermissions(input.role, input.permissions);
  return existed ? { status: 'OK' } : { status: 'UNKNOWN_ROLE_ERROR' };
}

/** `GET /recipe/permission/roles?permission=` query: the permission, trimmed and non-empty. */
export function parsePermissionQuery(query: Query): { permission: string } {
  const permission = requiredQuery(query, 'permission').trim();
  if (permission.length === 0) throw new BadRequestError("Field name 'permission' cannot be an empty String");
  return { permission };
}

/** → `{status:"OK", roles}`: the roles having the permission (none: an empty list). */
export async function getRolesWithPermission(store: RoleStore, input: { permission: string }) {
  return { status: 'OK', roles: await store.rolesWithPermission(input.permission) };
}
