/**
 * Key builders for users and everything hanging off a user. The data model (see README "Data
 * model"):
 *
 * - `APP#<a>#U#<userId>` is a user's partition. SK `USER` holds the user (primary or standalone
 *   recipe user) with its login methods embedded; SK `LINK` on a linked recipe user's own
 *   partition points to its primary; SK `TENANT#<t>` items place the user in a tenant and carry
 *   the GSI1 entry of the per-tenant "users newest first" index; SK `METADATA`, `ROLE#<t>#<role>`
 *   and `TOTP#<deviceName>` hold metadata, role assignments and TOTP devices of that user id.
 * - `APP#<a>#T#<t>#EMAIL#<email>`, `…#PHONE#<phone>`, `…#TP#<thirdPartyId>#<thirdPartyUserId>` are
 *   account-info partitions: fixed sort keys (`UNIQUE#<recipe>`, `PRIMARY`) make uniqueness a
 *   conditional write in the same transaction that creates the user.
 * - `APP#<a>#EXT#<externalUserId>` maps an external id to the core's user id (unique per app).
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
export const tenantUsersIndexPartition = (appId: string, tenantId: string) => `${tenantPartition(appId, tenantId)}#USERS`;
/** GSI1 sort key: zero-padded time joined then user id, so keyset pagination is stable. */
export const tenantUsersIndexSortKey = (timeJoined: number, userId: string) =>
  `${String(timeJoined).padStart(15, '0')}#${userId}`;

export const externalIdPartition = (appId: string, externalUserId: string) => `${appPartition(appId)}#EXT#${externalUserId}`;
export const EXTERNAL_ID_SK = 'MAP';
