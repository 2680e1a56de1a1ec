/**
 * The public tenant: every app has it, a login method or role of the import payload without
 * `tenantIds` goes to it, and it is the only tenant that may call app-wide APIs. The app a path
 * without an `appid-` prefix addresses has the same id (as in the reference core).
 */
export const PUBLIC_TENANT_ID = 'public';
