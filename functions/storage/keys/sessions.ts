/**
 * Key builders for sessions and signing keys (docs/sessions.md "Storage").
 *
 * - `APP#<a>#SESSION#<handle>` / `SESSION`: one session. Its GSI3 entry sits in the user-data
 *   shard of its user id (keys/metadata.ts) with sort key `SESSION#<SHA-256 of the user id,
 *   Base64url>#<tenant>#<handle>` (a fixed 43 characters whatever the id, so no id can make it long):
 *   a user's sessions are one Query of that shard, and deleting an app finds them with the rest of
 *   its user data.
 * - `APP#<a>#SIGNKEYS` / `DYN#<generation, 10 digits>`, `STATIC#RS256`, `REFRESH`: the app's
 *   signing keys and refresh-token key (a handful of items: one Query).
 */
import { createHash } from 'node:crypto';
import { appPartition } from './apps.js';

export const sessionPartition = (appId: string, handle: string) => `${appPartition(appId)}#SESSION#${handle}`;
export const SESSION_SK = 'SESSION';

const userPrefix = (userId: string) => `SESSION#${createHash('sha256').update(userId, 'utf8').digest('base64url')}#`;
/** GSI3 sort key of a session. */
export const userSessionSortKey = (userId: string, tenantId: string, handle: string) =>
  `${userPrefix(userId)}${tenantId}#${handle}`;
/** GSI3 sort-key prefix of a user id's sessions, in one tenant or all. */
export const userSessionsPrefix = (userId: string, tenantId?: string) =>
  tenantId === undefined ? userPrefix(userId) : `${userPrefix(userId)}${tenantId}#`;

export const signingKeysPartition = (appId: string) => `${appPartition(appId)}#SIGNKEYS`;
export const dynamicKeySortKey = (generation: number) => `DYN#${String(generation).padStart(10, '0')}`;
export const STATIC_KEY_SK = 'STATIC#RS256';
export const REFRESH_KEY_SK = 'REFRESH';
