/**
 * An in-memory RoleStores (functions/domain/roles/ports.ts) with the same outcomes as the DynamoDB
 * one, for unit tests of the roles use cases.
 */
import type { RoleStore, RoleStores } from '#functions/domain/roles/ports.js';

export function memoryRoleStores(): RoleStores {
  const apps = new Map<string, RoleStore>();
  return {
    forApp(appId) {
      let store = apps.get(appId);
      if (!store) {
        store = memoryRoleStore();
        apps.set(appId, store);
      }
      return store;
    },
  };
}

function memoryRoleStore(): RoleStore {
  const roles = new Map<string, Set<string>>();
  const assignments = new Set<string>();
  const key = (t: string, u: string, r: string) => JSON.stringify([t, u, r]);
  const assigned = () => [...assignments].map((k) => JSON.parse(k) as [string, string, string]);
  return {
    async createRoleOrAddPermissions(role, permissions) {
      const created = !roles.has(role);
      const set = roles.get(role) ?? new Set<string>();
      for (const p of permissions) set.add(p);
      roles.set(role, set);
      return created;
    },
    async deleteRoleAndAssignments(role) {
      for (const [t, u, r] of assigned()) if (r === role) assignments.delete(key(t, u, r));
      return roles.delete(role);
    },
    async listRoleNames() {
      return [...roles.keys()].sort();
    },
    async getRolePermissions(role) {
      const set = roles.get(role);
      return set ? [...set].sort() : undefined;
    },
    async listRoleUsers(tenantId, role) {
      return assigned()
        .filter(([t, , r]) => t === tenantId && r === role)
        .map(([, u]) => u)
        .sort();
    },
    async assignRole(tenantId, userId, role) {
      if (!roles.has(role)) return 'UNKNOWN_ROLE';
      if (assignments.has(key(tenantId, userId, role))) return 'ALREADY_ASSIGNED';
      assignments.add(key(tenantId, userId, role));
      return 'ASSIGNED';
    },
    async unassignRole(tenantId, userId, role) {
      if (!roles.has(role)) return 'UNKNOWN_ROLE';
      return assignments.delete(key(tenantId, userId, role)) ? 'REMOVED' : 'NOT_ASSIGNED';
    },
    async listUserRoles(tenantId, userId) {
      return assigned()
        .filter(([t, u]) => t === tenantId && u === userId)
        .map(([, , r]) => r);
    },
    async removeRolePermissions(role, permissions) {
      const set = roles.get(role);
      if (!set) return false;
      for (const p of permissions ?? [...set]) set.delete(p);
      return true;
    },
    async rolesWithPermission(permission) {
      return [...roles.keys()].filter((role) => roles.get(role)?.has(permission)).sort();
    },
  };
}
