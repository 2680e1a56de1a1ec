/**
 * Key builders for apps and tenants. Key strings are assembled only in functions/storage/keys/.
 * Every app-owned partition starts with `APP#<appId>` so an app's data is isolated by construction.
 */
export const appPartition = (appId: string) => `APP#${appId}`;
export const tenantSortKey = (tenantId: string) => `TENANT#${tenantId}`;
export const TENANT_SORT_PREFIX = 'TENANT#';

/** GSI1 entry of an app's public tenant: lists every app without a Scan. */
export const APP_LIST_PARTITION = 'APPS';
