/**
 * Key builders for passwordless devices and codes (see docs/architecture.md "Data model" and
 * docs/passwordless.md):
 *
 * - `APP#<a>#T#<t>#PLESS#DEV#<deviceIdHash>` is one device's partition: SK `DEVICE` holds the
 *   device (its email or phone number, link code salt, failed attempts), SK `CODE#<linkCodeHash>`
 *   each of its codes (id and creation time). A user input code names its device and its code's
 *   hash directly, so checking one is a single-partition read.
 * - GSI1 `APP#<a>#T#<t>#PLESS#EMAIL#<email>` / `…#PLESS#PHONE#<phone>` → the devices of an email or
 *   phone number (SK: the device id hash); GSI1 `APP#<a>#T#<t>#PLESS#CODEID#<codeId>` / `CODE` →
 *   a code by its id.
 * - GSI2 `APP#<a>#PLESS#<0..15>` / `<tenant>#<deviceIdHash>[#<linkCodeHash>]` → every device and
 *   code of an app (app deletion) or of one of its tenants (tenant deletion), sharded by device.
 *
 * The hashes are URL-safe Base64 (no `#`); an email or phone number is always a key's last part.
 */
import { appPartition } from './apps.js';

const tenantPartition = (appId: string, tenantId: string) => `${appPartition(appId)}#T#${tenantId}`;

export const passwordlessDevicePartition = (appId: string, tenantId: string, deviceIdHash: string) =>
  `${tenantPartition(appId, tenantId)}#PLESS#DEV#${deviceIdHash}`;
export const PASSWORDLESS_DEVICE_SK = 'DEVICE';
export const PASSWORDLESS_CODE_PREFIX = 'CODE#';
export const passwordlessCodeSortKey = (linkCodeHash: string) => `${PASSWORDLESS_CODE_PREFIX}${linkCodeHash}`;

/** GSI1: the devices of an email or of a phone number in a tenant. */
export const passwordlessEmailIndexPartition = (appId: string, tenantId: string, email: string) =>
  `${tenantPartition(appId, tenantId)}#PLESS#EMAIL#${email}`;
export const passwordlessPhoneIndexPartition = (appId: string, tenantId: string, phoneNumber: string) =>
  `${tenantPartition(appId, tenantId)}#PLESS#PHONE#${phoneNumber}`;
export const passwordlessDeviceIndexSortKey = (deviceIdHash: string) => deviceIdHash;

/** GSI1: a code by its id in a tenant. */
export const passwordlessCodeIdIndexPartition = (appId: string, tenantId: string, codeId: string) =>
  `${tenantPartition(appId, tenantId)}#PLESS#CODEID#${codeId}`;
export const PASSWORDLESS_CODE_ID_INDEX_SK = 'CODE';

/** GSI2: every device and code of an app, sharded by device id hash so no index partition runs hot. */
export const PASSWORDLESS_SHARDS = 16;
export const passwordlessAppIndexPartition = (appId: string, shard: number) => `${appPartition(appId)}#PLESS#${shard}`;
export const passwordlessTenantIndexPrefix = (tenantId: string) => `${tenantId}#`;
export const passwordlessAppIndexSortKey = (tenantId: string, deviceIdHash: string, linkCodeHash?: string) =>
  `${passwordlessTenantIndexPrefix(tenantId)}${deviceIdHash}${linkCodeHash === undefined ? '' : `#${linkCodeHash}`}`;
