export type AssignOutcome = 'ASSIGNED' | 'ALREADY_ASSIGNED' | 'UNKNOWN_ROLE';
export type UnassignOutcome = 'REMOVED' | 'NOT_ASSIGNED' | 'UNKNOWN_ROLE';

/** What the roles use cases need from storage: the roles of one app. Role names are trimmed and non-empty. */
export interface RoleStore {
  /** Creates the role if missing and adds the permissions; true when it was created. */
  createRoleOrAddPermissions(role: string, permissions: readonly string[]): Promise<boolean>;
  /** Deletes the role and all its assignments in every tenant; true when the role existed. */
  deleteRoleAndAssignments(role: string): Promise<boolean>;
  listRoleNames(): Promise<string[]>;
  /** The role's permissions, or undefined when the role does not exist. */
  getRolePermissions(role: string): Promise<string[] | undefined>;
  listRoleUsers(tenantId: string, role: string): Promise<string[]>;
  /**
   * Removes these permissions from the role (`undefined`: all of them); false, with nothing
   * written, when the role does not exist.
   */
  removeRolePermissions(role: string, permissions: readonly string[] | undefined): Promise<boolean>;
  /** The roles of the app whose permissions include `permission`, sorted by name. */
  rolesWithPermission(permission: string): Promise<string[]>;
  assignRole(tenantId: string, userId: string, role: string): Promise<AssignOutcome>;
  unassignRole(tenantId: string, userId: string, role: string): Promise<UnassignOutcome>;
  listUserRoles(tenantId: string, userId: string): Promise<string[]>;
}

/** The roles of every app of a table; wiring binds it to the request's app (docs/architecture.md "Stores bound to their app"). */
export interface RoleStores {
  forApp(appId: string): RoleStore;
}
