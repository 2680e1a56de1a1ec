/**
 * The app-wide endpoints: `PUT /recipe/multitenancy/app[/v2]`, `GET …/app/list[/v2]` and
 * `POST …/app/remove` (docs/reference-behaviour.md "Apps"). Only the base tenant lists and removes
 * apps; an app is created or updated from the base tenant or from its own public tenant.
 */
import { presentProviderSecrets } from '#functions/config/index.js';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { ForbiddenError } from '#functions/shared/errors.js';
import type { ApiVersion, Caller, Deps } from './deps.js';
import type { AppPutInput } from './input.js';
import { isBaseTenant, type TenantRecord } from './tenant.js';
import { upsertTenant } from './tenant-write.js';
import { tenantView } from './views.js';

/** `PUT /recipe/multitenancy/app[/v2]` (docs/reference-behaviour.md "Creating or updating an app", "The legacy app input"). */
export async function createOrUpdateApp(deps: Deps, caller: Caller, { appId, config }: AppPutInput, api: ApiVersion) {
  const fromSameApp = caller.appId === appId && caller.tenantId === PUBLIC_TENANT_ID;
  if (!isBaseTenant(caller.appId, caller.tenantId) && !fromSameApp) {
    throw new ForbiddenError('You must use the public or same app to add/update an app');
  }
  const { createdNew } = await upsertTenant(deps, appId, PUBLIC_TENANT_ID, config, api, caller.cdiAtLeast5);
  return { status: 'OK', createdNew };
}

/** A tenant whose providers show fingerprints instead of their secrets (the app list). */
const withProviderFingerprints = (tenant: TenantRecord): TenantRecord => ({
  ...tenant,
  thirdPartyProviders: tenant.thirdPartyProviders.map(presentProviderSecrets),
});

/** `GET /recipe/multitenancy/app/list[/v2]` (docs/reference-behaviour.md "Listing apps"). */
export async function listApps(deps: Deps, caller: Caller, api: ApiVersion) {
  if (!isBaseTenant(caller.appId, caller.tenantId)) {
    throw new ForbiddenError(
      'Only the public tenantId and public appId is allowed to list all apps associated with this connection uri domain',
    );
  }
  const appIds = await deps.store.listAppIds();
  const apps = await Promise.all(
    appIds.map(async (appId) => ({
      appId,
      // Every app's providers in one answer: their secrets as fingerprints (a deliberate difference).
      tenants: (await deps.store.listTenants(appId)).map((t) =>
        tenantView(withProviderFingerprints(t), api, caller.cdiAtLeast5),
      ),
    })),
  );
  return { status: 'OK', apps: apps.filter((a) => a.tenants.length > 0) };
}

/**
 * `POST /recipe/multitenancy/app/remove` (docs/reference-behaviour.md "Removing an app"). Deletes everything the app owns, then its
 * public tenant last: a crash part-way leaves the app in place, and calling remove again
 * finishes the job.
 */
export async function removeApp(deps: Deps, caller: Caller, { appId }: { appId: string }) {
  if (!isBaseTenant(caller.appId, caller.tenantId)) {
    throw new ForbiddenError('Only the public tenantId and public appId is allowed to delete an app');
  }
  const tenants = await deps.store.listTenants(appId);
  if (tenants.length === 0) return { status: 'OK', didExist: false };
  if (tenants.some((t) => t.tenantId !== PUBLIC_TENANT_ID)) {
    throw new ForbiddenError(
      'Please delete all tenants except the public tenant for this app before calling the delete API',
    );
  }
  await deps.purger.purgeAppData(appId, tenants[0]?.coreConfig ?? {});
  const didExist = await deps.store.deleteTenant(appId, PUBLIC_TENANT_ID);
  return { status: 'OK', didExist };
}
