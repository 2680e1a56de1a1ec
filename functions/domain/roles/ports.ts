export type AssignOutcome = 'ASSIGNED' | 'ALREADY_ASSIGNED' | 'UNKNOWN_ROLE';
export type UnassignOutcome = 'REMOVED' | 'NOT_ASSIGNED' | 'UNKNOWN_ROLE';

/** What the roles use cases need from storage. Role names are trimmed and non-empty. */
export interface RoleStore {
  /** Creates the role if missing and adds the permissions; true when it was created. */
  createRoleOrAddPermissions(appId: string, role: string, permissions: readonly string[]): Promise<boolean>;
  /** Deletes the role and all its assignments in every tenant; true when the role existed. */
  deleteRoleAndAssignments(appId: string, role: string): Promise<boolean>;
  listRoleNames(appId: string): Promise<string[]>;
  /** The role's permissions, or undefined when the role does not exist. */
  getRolePermissions(appId: string, role: string): Promise<string[] | undefined>;
  listRoleUsers(appId: string, tenantId: string, role: string): Promise<string[]>;
  /**
   * Removes these permissions from the role (`undefined`: all of them); false, with nothing
   * written, when the role does not exist.
   */
  removePermissions(appId: string, role: string, permissions: readonly string[] | undefined): Promise<boolean>;
  /** The roles of the app whose permissions include `permission`, sorted by name. */
  rolesWithPermission(appId: string, permission: string): Promise<string[]>;
  assignRole(appId: string, tenantId: string, userId: string, role: string): Promise<AssignOutcome>;
  unassignRole(appId: string, tenantId: string, userId: string, role: string): Promise<UnassignOutcome>;
  listUserRoles(appId: string, tenantId: string, userId: string): Promise<string[]>;
}
