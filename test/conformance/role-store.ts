/**
 * What every RoleStores (functions/domain/roles/ports.ts) must do, run against the DynamoDB store
 * (test/integration/store-conformance.test.ts) and the in-memory one the unit tests use
 * (test/unit/store-conformance.test.ts): an app sees only its own roles and assignments, and the
 * conditional writes (an assignment checked against its role, a role created once) hold when many
 * race.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RoleStores } from '#functions/domain/roles/ports.js';

const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

export function roleStoreConformance(label: string, stores: () => RoleStores): void {
  describe(`RoleStore conformance: ${label}`, () => {
    it('another app sees none of an app’s roles, permissions or assignments, and cannot change them', async () => {
      const table = stores();
      const mine = table.forApp(unique('roles-a'));
      const theirs = table.forApp(unique('roles-b'));
      expect(await mine.createRoleOrAddPermissions('admin', ['read', 'write'])).toBe(true);
      expect(await mine.assignRole('public', 'u1', 'admin')).toBe('ASSIGNED');

      expect(await theirs.listRoleNames()).toEqual([]);
      expect(await theirs.getRolePermissions('admin')).toBeUndefined();
      expect(await theirs.rolesWithPermission('read')).toEqual([]);
      expect(await theirs.listRoleUsers('public', 'admin')).toEqual([]);
      expect(await theirs.listUserRoles('public', 'u1')).toEqual([]);
      expect(await theirs.assignRole('public', 'u2', 'admin')).toBe('UNKNOWN_ROLE');
      expect(await theirs.unassignRole('public', 'u1', 'admin')).toBe('UNKNOWN_ROLE');
      expect(await theirs.removeRolePermissions('admin', undefined)).toBe(false);
      expect(await theirs.deleteRoleAndAssignments('admin')).toBe(false);

      // The other app's role of the same name is its own: created new, with its own members.
      expect(await theirs.createRoleOrAddPermissions('admin', ['delete'])).toBe(true);
      expect(await theirs.listRoleUsers('public', 'admin')).toEqual([]);
      expect(await theirs.assignRole('public', 'u1', 'admin')).toBe('ASSIGNED');
      expect(await theirs.deleteRoleAndAssignments('admin')).toBe(true);

      expect(await mine.listRoleNames()).toEqual(['admin']);
      expect(await mine.getRolePermissions('admin')).toEqual(['read', 'write']);
      expect(await mine.listRoleUsers('public', 'admin')).toEqual(['u1']);
      expect(await mine.listUserRoles('public', 'u1')).toEqual(['admin']);
    });

    it('of many assignments of one role to one user racing, exactly one assigns; of many removals, one removes', async () => {
      const store = stores().forApp(unique('roles-race'));
      await store.createRoleOrAddPermissions('r', []);
      const assigned = await Promise.all(Array.from({ length: 8 }, () => store.assignRole('t1', 'u', 'r')));
      expect(assigned.filter((o) => o === 'ASSIGNED')).toHaveLength(1);
      expect(assigned.filter((o) => o === 'ALREADY_ASSIGNED')).toHaveLength(7);
      const removed = await Promise.all(Array.from({ length: 8 }, () => store.unassignRole('t1', 'u', 'r')));
      expect(removed.filter((o) => o === 'REMOVED')).toHaveLength(1);
      expect(removed.filter((o) => o === 'NOT_ASSIGNED')).toHaveLength(7);
      expect(await store.listUserRoles('t1', 'u')).toEqual([]);
    });

    it('of many creations of one role racing, exactly one creates it and every permission is kept', async () => {
      const store = stores().forApp(unique('roles-create'));
      const created = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.createRoleOrAddPermissions('r', [`p${i}`])),
      );
      expect(created.filter(Boolean)).toHaveLength(1);
      expect(await store.getRolePermissions('r')).toEqual(Array.from({ length: 8 }, (_, i) => `p${i}`).sort());
    });
  });
}
