/**
 * The tenant endpoints of an app: `PUT /recipe/multitenancy/tenant[/v2]`, `GET /<t>/recipe/multitenancy/tenant[/v2]`,
 * `GET …/tenant/list[/v2]` and `POST …/tenant/remove` (docs/reference-behaviour.md "Tenants").
 * Only the app's public tenant lists and removes tenants; a tenant is created or updated from the
 * public tenant or from itself.
 */
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { ForbiddenError } from '#functions/shared/errors.js';
import type { ApiVersion, Caller, Deps } from './deps.js';
import type { TenantPutInput } from './input.js';
import type { TenantRecord } from './tenant.js';
import { upsertTenant } from './tenant-write.js';
import { tenantView } from './views.js';

/** `PUT /recipe/multitenancy/tenant[/v2]` (docs/reference-behaviour.md "Creating or updating a tenant"). */
export async function createOrUpdateTenant(
  deps: Deps,
  caller: Caller,
  { tenantId, config }: TenantPutInput,
  api: ApiVersion,
) {
  if (caller.tenantId !== PUBLIC_TENANT_ID && caller.tenantId !== tenantId) {
    throw new ForbiddenError('You must use the public or same tenant to add/update a tenant');
  }
  const { createdNew } = await upsertTenant(deps, caller.appId, tenantId, config, api, caller.cdiAtLeast5);
  return { status: 'OK', createdNew };
}

/**
 * `GET /<t>/recipe/multitenancy/tenant[/v2]`: an unknown app or tenant is a 200 status, not a 400.
 * The SDK reads its providers here, secrets included: they are opened (docs/security.md "Credentials at rest").
 */
export async function getTenant(
  deps: Pick<Deps, 'store'>,
  caller: Caller,
  app: TenantRecord | undefined,
  api: ApiVersion,
) {
  if (!app || !caller.tenant) return { status: 'TENANT_NOT_FOUND_ERROR' };
  return { ...tenantView(await deps.store.openSecrets(caller.tenant), api, caller.cdiAtLeast5), status: 'OK' };
}

/** `GET /recipe/multitenancy/tenant/list[/v2]` (docs/reference-behaviour.md "Reading and listing tenants"); providers with their secrets, as for a get. */
export async function listTenants(deps: Deps, caller: Caller, api: ApiVersion) {
  if (caller.tenantId !== PUBLIC_TENANT_ID) {
    throw new ForbiddenError('Only the public tenantId is allowed to list all tenants associated with this app');
  }
  const tenants = await Promise.all((await deps.store.listTenants(caller.appId)).map((t) => deps.store.openSecrets(t)));
  return { status: 'OK', tenants: tenants.map((t) => tenantView(t, api, caller.cdiAtLeast5)) };
}

/** `POST /recipe/multitenancy/tenant/remove` (docs/reference-behaviour.md "Removing a tenant"). */
export async function removeTenant(deps: Deps, caller: Caller, { tenantId }: { tenantId: string }) {
  if (caller.tenantId !== PUBLIC_TENANT_ID)
    throw new ForbiddenError('Only the public tenantId is allowed to delete a tenant');
  const didExist = await deps.store.deleteTenant(caller.appId, tenantId);
  // After the tenant item is gone nothing new can join it; then its memberships are removed. An
  // interrupted purge is finished by calling remove again. The caller is the app's public tenant,
  // whose overrides name the app's table.
  await deps.purger.purgeTenantData(caller.appId, tenantId, caller.tenant?.coreConfig ?? {});
  return { status: 'OK', didExist };
}
