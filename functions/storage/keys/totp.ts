/**
 * Key builders for TOTP devices: PK `APP#<a>#U#<userId>`, SK `TOTP#<deviceName>` (one item per
 * device; the name is unique per user id by construction). Devices also carry the user-data
 * index entry (keys/metadata.ts).
 */
export { totpDeviceSortKey, userPartition } from './users.js';

export const TOTP_SORT_PREFIX = 'TOTP#';
