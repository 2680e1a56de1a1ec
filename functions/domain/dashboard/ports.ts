/**
 * What the dashboard use cases need from storage (docs/dashboard.md). Emails are normalised
 * (trimmed, lower-cased); sessions are known only by the SHA-256 digest of their id, never by
 * the id itself.
 */

/** A dashboard user as stored. `passwordHash` never leaves the use cases. */
export interface DashboardUser {
  readonly userId: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly timeJoined: number;
}

/** A dashboard session as stored (its id is known to its holder only). */
export interface DashboardSession {
  readonly userId: string;
  readonly timeCreated: number;
  /** Epoch milliseconds after which the session is no longer valid. */
  readonly expiry: number;
}

export interface DashboardStore {
  /** Creates the user and reserves its email, atomically: 'email-taken' / 'id-taken' write nothing. */
  createUser(appId: string, user: DashboardUser): Promise<'created' | 'email-taken' | 'id-taken'>;
  getUserById(appId: string, userId: string): Promise<DashboardUser | undefined>;
  getUserByEmail(appId: string, email: string): Promise<DashboardUser | undefined>;
  /** Every dashboard user of the app, oldest first. */
  listUsers(appId: string): Promise<DashboardUser[]>;
  /**
   * Changes the email and/or the password hash of `current` (as read), on condition that it is
   * still stored as read: 'email-taken' (another user holds the new email) and 'changed' (the user
   * changed or went meanwhile: read again) write nothing.
   */
  updateUser(
    appId: string,
    current: DashboardUser,
    change: { readonly email?: string; readonly passwordHash?: string },
  ): Promise<'updated' | 'email-taken' | 'changed'>;
  /** Removes the user and its email reservation, on condition that it is still stored as read. */
  deleteUser(appId: string, current: DashboardUser): Promise<'deleted' | 'changed'>;
  createSession(appId: string, sessionDigest: string, session: DashboardSession): Promise<void>;
  getSession(appId: string, sessionDigest: string): Promise<DashboardSession | undefined>;
  deleteSession(appId: string, sessionDigest: string): Promise<void>;
  /** The user's sessions, oldest first (expired ones may still be among them until they are swept). */
  listSessions(appId: string, userId: string): Promise<DashboardSession[]>;
  deleteSessionsOf(appId: string, userId: string): Promise<void>;
}
