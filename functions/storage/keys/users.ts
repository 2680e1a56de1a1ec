/**
 * Key builders for users and everything hanging off a user. The data model (see docs/architecture.md "Data
 * model"):
 *
 * - `APP#<a>#U#<userId>` is a user's partition. SK `USER` holds the user (primary or standalone
 *   recipe user) with its login methods embedded; SK `LINK` on a linked recipe user's own
 *   partition points to its primary. The USER item carries the GSI1 entry of the per-tenant
 *   "users newest first" index for the user's first tenant; SK `TENANT#<t>` items do so for each
 *   further tenant (most users have one tenant: no extra item). SK `METADATA`, `ROLE#<t>#<role>`
 *   and `TOTP#<deviceName>` hold metadata, role assignments and TOTP devices of that user id.
 * - `APP#<a>#T#<t>#EMAIL#<email>`, `…#PHONE#<phone>`, `…#TP#<thirdPartyId>#<thirdPartyUserId>` are
 *   account-info partitions: fixed sort keys (`UNIQUE#<recipe>`, `PRIMARY`) make uniqueness a
 *   conditional write in the same transaction that creates the user.
 * - `APP#<a>#EXT#<externalUserId>` maps an external id to the core's user id (unique per app).
 * - `APP#<a>#UCOUNT#<shard>` holds the sharded user counters (exact counts in O(1) reads).
 * - `APP#<a>#PWPENDING#<shard>` lists the login methods pending the password-migration hook.
 * - GSI2 `APP#<a>#USERS#<shard>` lists every USER item of an app (used by app deletion).
 * - The account-info items also carry the search entries of their tenant (docs/users.md "Searching
 *   users"): GSI1 `APP#<a>#T#<t>#SEARCH#<EMAIL|PHONE|TP>#<first character>` / the lower-cased
 *   value, and for an email GSI2 `…#SEARCH#DOMAIN#<first character>` / its lower-cased domain.
 * - `APP#<a>#PRIMARIES` / `GUARD` says whether the app may have primary users (storage/users/guard.ts).
 */
import { appPartition } from './apps.js';

export const userPartition = (appId: string, userId: string) => `${appPartition(appId)}#U#${userId}`;
export const USER_SK = 'USER';
export const LINK_SK = 'LINK';
export const METADATA_SK = 'METADATA';
export const userTenantSortKey = (tenantId: string) => `TENANT#${tenantId}`;
export const userRoleSortKey = (tenantId: string, role: string) => `ROLE#${tenantId}#${role}`;
export const totpDeviceSortKey = (deviceName: string) => `TOTP#${deviceName}`;

const tenantPartition = (appId: string, tenantId: string) => `${appPartition(appId)}#T#${tenantId}`;
export const emailPartition = (appId: string, tenantId: string, email: string) =>
  `${tenantPartition(appId, tenantId)}#EMAIL#${email}`;
export const phonePartition = (appId: string, tenantId: string, phone: string) =>
  `${tenantPartition(appId, tenantId)}#PHONE#${phone}`;
export const thirdPartyPartition = (appId: string, tenantId: string, thirdPartyId: string, thirdPartyUserId: string) =>
  `${tenantPartition(appId, tenantId)}#TP#${thirdPartyId}#${thirdPartyUserId}`;
export const uniqueSortKey = (recipeId: string) => `UNIQUE#${recipeId}`;
export const PRIMARY_SK = 'PRIMARY';

/** GSI1 partition of the per-tenant "users newest first" index. */
export const tenantUsersIndexPartition = (appId: string, tenantId: string) =>
  `${tenantPartition(appId, tenantId)}#USERS`;
/** GSI1 sort key: zero-padded time joined then user id, so keyset pagination is stable. */
export const tenantUsersIndexSortKey = (timeJoined: number, userId: string) =>
  `${String(timeJoined).padStart(15, '0')}#${userId}`;

export const externalIdPartition = (appId: string, externalUserId: string) =>
  `${appPartition(appId)}#EXT#${externalUserId}`;
export const EXTERNAL_ID_SK = 'MAP';

/** Sort key of a non-unique account-info reference (a third-party login method's email). */
export const accountRefSortKey = (recipeUserId: string) => `REF#${recipeUserId}`;

/**
 * Users counters are sharded so a fast import never makes one item hot: `APP#<a>#UCOUNT#<shard>`
 * holds SK `APP` (every user of the app once) and `TENANT#<t>` (users in tenant t), each with one
 * number per combination of recipes a user has (`m<mask>`).
 */
export const USER_COUNTER_SHARDS = 16;
export const userCounterPartition = (appId: string, shard: number) => `${appPartition(appId)}#UCOUNT#${shard}`;
export const COUNTER_APP_SK = 'APP';
/**
 * Attributes of the app counter item (SK `APP`) beside the `m<mask>` counts: login methods pending
 * the password-migration hook, and those the hook migrated (docs/password-migration-hook.md).
 */
export const PASSWORD_PENDING_COUNTER = 'pwPending';
export const PASSWORD_MIGRATED_COUNTER = 'pwMigrated';

/**
 * Login methods pending the password-migration hook, one item each, sharded by recipe user id like
 * the counters: `APP#<a>#PWPENDING#<shard>`, SK the zero-padded time joined then the recipe user id.
 * The cutover list (`GET /password-migration/pending`) pages through the shards in order.
 */
export const passwordPendingPartition = (appId: string, shard: number) => `${appPartition(appId)}#PWPENDING#${shard}`;
export const passwordPendingSortKey = (timeJoined: number, recipeUserId: string) =>
  tenantUsersIndexSortKey(timeJoined, recipeUserId);
export const counterTenantSortKey = (tenantId: string) => `TENANT#${tenantId}`;

/**
 * GSI2 entry of every USER item: all users of an app (app deletion enumerates them without a
 * Scan), sharded like the counters so a bulk import does not make one index partition hot.
 */
export const appUsersIndexPartition = (appId: string, shard: number) => `${appPartition(appId)}#USERS#${shard}`;
export const appUsersIndexSortKey = (userId: string) => userId;

/** What a search index entry is made from: an email, an email's domain, a phone number, a provider. */
export type SearchIndexField = 'EMAIL' | 'DOMAIN' | 'PHONE' | 'TP';

/**
 * The longest sort key of a search entry, in UTF-8 bytes: a lower-cased email may be longer than
 * a sort key may be (1,024 bytes), and no one searches by a prefix that long. A value and a search
 * term are cut the same way, so a value that starts with the term starts with the cut term; the
 * use case then checks the whole values.
 */
const SEARCH_KEY_BYTES = 256;

/** The sort key of a value in a search index, and the prefix a term is looked up with. */
export function searchIndexSortKey(value: string): string {
  const lower = value.toLowerCase();
  if (Buffer.byteLength(lower, 'utf8') <= SEARCH_KEY_BYTES) return lower;
  let out = '';
  let bytes = 0;
  for (const char of lower) {
    bytes += Buffer.byteLength(char, 'utf8');
    if (bytes > SEARCH_KEY_BYTES) break;
    out += char;
  }
  return out;
}

/**
 * The search index partition of a value (or term): one per tenant, field and first character of
 * the lower-cased value, so a term's matches are one Query and an import's entries spread over
 * many partitions. `value` is not empty.
 */
export function searchIndexPartition(appId: string, tenantId: string, field: SearchIndexField, value: string): string {
  const first = String.fromCodePoint(searchIndexSortKey(value).codePointAt(0) ?? 0);
  return `${tenantPartition(appId, tenantId)}#SEARCH#${field}#${first}`;
}

/**
 * The app's primary-users guard (storage/users/guard.ts): one item per app in the table that holds
 * its users. Every write that creates a primary user's account-info reservation also sets it.
 */
export const primaryGuardKey = (appId: string) => ({ PK: `${appPartition(appId)}#PRIMARIES`, SK: 'GUARD' });
