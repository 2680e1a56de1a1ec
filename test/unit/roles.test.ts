import { describe, expect, it } from 'vitest';
import {
  createRoleRequest,
  normaliseRole,
  permissionQuery,
  removePermissionsRequest,
  userRoleRequest,
} from '#functions/domain/roles/input.js';
import {
  addRoleToUser,
  getRolePermissions,
  getRolesWithPermission,
  getRoleUsers,
  removePermissionsFromRole,
  removeRole,
  removeRoleFromUser,
} from '#functions/domain/roles/service.js';
import { parseRequest } from '#functions/shared/request-schema.js';
import { USER_DATA_SHARDS, userDataIndexPartitionOf } from '#functions/storage/keys/metadata.js';
import {
  ROLE_MEMBER_SHARDS,
  roleMemberShard,
  roleMembersIndexPartition,
  roleMembersIndexSortKey,
  roleSortKey,
  userRoleSortKey,
  userRoleSortPrefix,
} from '#functions/storage/keys/roles.js';
import { shardOf } from '#functions/storage/kit/shard.js';
import { memoryRoleStores } from '../helpers/memory-role-store.js';

// The routes' schemas, read as the pipeline reads a body or a query.
const parseCreateRole = (body: unknown) => parseRequest(createRoleRequest, body);
const parseUserRole = (body: unknown) => parseRequest(userRoleRequest, body);
const parseRemovePermissions = (body: unknown) => parseRequest(removePermissionsRequest, body);
const parsePermissionQuery = (query: unknown) => parseRequest(permissionQuery, query, 'query');

describe('role keys', () => {
  it('builds the exact key strings', () => {
    expect(roleSortKey('admin')).toBe('ROLE#admin');
    expect(userRoleSortKey('t1', 'admin')).toBe('ROLE#t1#admin');
    expect(userRoleSortPrefix('t1')).toBe('ROLE#t1#');
    expect(roleMembersIndexPartition('app1', 'a#b', 3)).toBe('APP#app1#ROLE#3#a#b');
    expect(roleMembersIndexSortKey('t1', 'u1')).toBe('t1#u1');
    expect(userDataIndexPartitionOf('app1', 'u1')).toBe(
      `APP#app1#UDATA#${String(shardOf('u1', USER_DATA_SHARDS)).padStart(2, '0')}`,
    );
  });

  it('spreads user ids over every shard, stably', () => {
    const shards = new Set(Array.from({ length: 200 }, (_, i) => roleMemberShard(`user-${i}`)));
    expect(shards.size).toBe(ROLE_MEMBER_SHARDS);
    expect(roleMemberShard('same')).toBe(roleMemberShard('same'));
  });
});

describe('role input', () => {
  it('trims role and permissions and applies the core messages', () => {
    expect(parseCreateRole({ role: ' a ', permissions: [' p ', 'q'] })).toEqual({ role: 'a', permissions: ['p', 'q'] });
    expect(parseCreateRole({ role: 'a', permissions: null })).toEqual({ role: 'a', permissions: [] });
    expect(() => normaliseRole('  ')).toThrow("Field name 'role' cannot be an empty String");
    expect(() => parseCreateRole({ role: 'a', permissions: [''] })).toThrow(
      "Field name 'permissions' cannot contain an empty string",
    );
    expect(() => parseUserRole({ role: 'a' })).toThrow("Field name 'userId' is invalid in JSON input");
    expect(parseUserRole({ userId: ' u ', role: ' a ' })).toEqual({ userId: ' u ', role: 'a' });
  });

  it('reads the permissions to remove (none given: all) and the permission to look up', () => {
    expect(parseRemovePermissions({ role: ' a ', permissions: [' p ', 'q'] })).toEqual({
      role: 'a',
      permissions: ['p', 'q'],
    });
    expect(parseRemovePermissions({ role: 'a' })).toEqual({ role: 'a' });
    expect(parseRemovePermissions({ role: 'a', permissions: null })).toEqual({ role: 'a' });
    expect(parseRemovePermissions({ role: 'a', permissions: [] })).toEqual({ role: 'a', permissions: [] });
    expect(() => parseRemovePermissions({ role: 'a', permissions: [' '] })).toThrow(
      "Field name 'permissions' cannot contain an empty string",
    );
    expect(() => parseRemovePermissions({ role: 'a', permissions: [1] })).toThrow(
      "Field name 'permissions' is invalid in JSON input",
    );
    expect(() => parseRemovePermissions({ role: 'a', permissions: 'p' })).toThrow(
      "Field name 'permissions' is invalid in JSON input",
    );
    expect(() => parseRemovePermissions({ permissions: [] })).toThrow("Field name 'role' is invalid in JSON input");
    expect(parsePermissionQuery({ permission: ' read ' })).toEqual({ permission: 'read' });
    expect(() => parsePermissionQuery({ permission: ' ' })).toThrow(
      "Field name 'permission' cannot be an empty String",
    );
    expect(() => parsePermissionQuery({})).toThrow("Field name 'permission' is missing in GET request");
  });
});

describe('role use cases', () => {
  it('maps store outcomes to the core statuses', async () => {
    const store = memoryRoleStores().forApp('a');
    const input = { userId: 'u', role: 'r' };
    expect(await addRoleToUser(store, 'public', input)).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    expect(await getRolePermissions(store, { role: 'r' })).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    await store.createRoleOrAddPermissions('r', ['p']);
    expect(await addRoleToUser(store, 'public', input)).toEqual({ status: 'OK', didUserAlreadyHaveRole: false });
    expect(await addRoleToUser(store, 'public', input)).toEqual({ status: 'OK', didUserAlreadyHaveRole: true });
    expect(await getRoleUsers(store, 'public', { role: 'r' })).toEqual({ status: 'OK', users: ['u'] });
    expect(await removeRoleFromUser(store, 'public', input)).toEqual({ status: 'OK', didUserHaveRole: true });
    expect(await removeRoleFromUser(store, 'public', input)).toEqual({ status: 'OK', didUserHaveRole: false });
    expect(await removeRole(store, { role: 'r' })).toEqual({ status: 'OK', didRoleExist: true });
    expect(await removeRoleFromUser(store, 'public', input)).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
  });

  it('removes permissions and finds the roles having one', async () => {
    const store = memoryRoleStores().forApp('a');
    expect(await removePermissionsFromRole(store, { role: 'r', permissions: ['p'] })).toEqual({
      status: 'UNKNOWN_ROLE_ERROR',
    });
    await store.createRoleOrAddPermissions('r', ['p', 'q']);
    await store.createRoleOrAddPermissions('s', ['p']);
    expect(await getRolesWithPermission(store, { permission: 'p' })).toEqual({ status: 'OK', roles: ['r', 's'] });
    expect(await removePermissionsFromRole(store, { role: 'r', permissions: ['p', 'x'] })).toEqual({
      status: 'OK',
    });
    expect(await getRolesWithPermission(store, { permission: 'p' })).toEqual({ status: 'OK', roles: ['s'] });
    expect(await removePermissionsFromRole(store, { role: 's' })).toEqual({ status: 'OK' });
    expect(await getRolePermissions(store, { role: 's' })).toEqual({ status: 'OK', permissions: [] });
  });
});
