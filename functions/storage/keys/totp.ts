/**
 * Key builders for TOTP: devices, PK `APP#<a>#U#<userId>`, SK `TOTP#<deviceName>` (one item per
 * device; the name is unique per user id by construction), and the attempt record of a user id in
 * a tenant (failures and used codes, docs/totp-and-mfa.md), same partition, SK
 * `TOTPATTEMPTS#<tenantId>`. Both also carry the user-data index entry (keys/metadata.ts), whose
 * sort key is theirs.
 */
export { totpDeviceSortKey, userPartition } from './users.js';

export const TOTP_SORT_PREFIX = 'TOTP#';
export const TOTP_ATTEMPTS_SORT_PREFIX = 'TOTPATTEMPTS#';
export const totpAttemptsSortKey = (tenantId: string) => `${TOTP_ATTEMPTS_SORT_PREFIX}${tenantId}`;
