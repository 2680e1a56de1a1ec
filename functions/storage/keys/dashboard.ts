/**
 * Key builders for the user-management dashboard's own users and sessions (docs/dashboard.md).
 *
 * Everything sits in the app's partition `APP#<a>` (of the app's table), under sort keys that
 * start with {@link DASHBOARD_SORT_PREFIX}, so deleting the app empties it with the rest of that
 * partition and one Query finds whether an app has any:
 *
 * - `DASHBOARD#USER#<userId>`: a dashboard user (its email, password hash, time joined);
 * - `DASHBOARD#EMAIL#<email>`: the email's reservation, naming its user (one user per email);
 * - `DASHBOARD#SESSION#<SHA-256 of the session id, Base64url>`: a session (never the id itself),
 *   with a GSI1 entry `APP#<a>#DASHBOARD#<userId>#SESSIONS` / `<time created, 15 digits>#<digest>`
 *   listing a user's sessions.
 */
import { appPartition } from './apps.js';

export { appPartition };

export const DASHBOARD_SORT_PREFIX = 'DASHBOARD#';
export const DASHBOARD_USER_PREFIX = `${DASHBOARD_SORT_PREFIX}USER#`;
export const dashboardUserSortKey = (userId: string) => `${DASHBOARD_USER_PREFIX}${userId}`;
export const dashboardEmailSortKey = (email: string) => `${DASHBOARD_SORT_PREFIX}EMAIL#${email}`;
export const dashboardSessionSortKey = (sessionDigest: string) => `${DASHBOARD_SORT_PREFIX}SESSION#${sessionDigest}`;

/** GSI1 partition of one dashboard user's sessions. */
export const dashboardUserSessionsPartition = (appId: string, userId: string) =>
  `${appPartition(appId)}#DASHBOARD#${userId}#SESSIONS`;
export const dashboardUserSessionSortKey = (timeCreated: number, sessionDigest: string) =>
  `${String(timeCreated).padStart(15, '0')}#${sessionDigest}`;
