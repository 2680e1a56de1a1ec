/**
 * Key builders for TOTP: devices, PK `APP#<a>#U#<userId>`, SK `TOTP#<deviceName>` (one item per
 * device; the name is unique per user id by construction), and the attempt record of a user id
 * (failures and used codes, one for all the app's tenants; docs/totp-and-mfa.md), same partition,
 * SK `TOTPATTEMPTS#`. Records kept per tenant before, `TOTPATTEMPTS#<tenantId>`, are no longer
 * read; they expire by their TTL, and go with their tenant, device or user. Both kinds also carry
 * the user-data index entry (keys/metadata.ts), whose sort key is theirs.
 */
export { totpDeviceSortKey, userPartition } from './users.js';

export const TOTP_SORT_PREFIX = 'TOTP#';
export const TOTP_ATTEMPTS_SORT_PREFIX = 'TOTPATTEMPTS#';
/** The user's attempt record: the prefix alone (no tenant id is empty). */
export const TOTP_USER_ATTEMPTS_SORT_KEY = 'TOTPATTEMPTS#';
/** A record kept per tenant before attempts were counted per user (purged with its tenant). */
export const totpAttemptsSortKey = (tenantId: string) => `${TOTP_ATTEMPTS_SORT_PREFIX}${tenantId}`;
