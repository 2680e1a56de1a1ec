import {
  type ConfigValues,
  hookHostMessage,
  INVALID_CORE_CONFIG_PREFIX,
  mergeCoreConfig,
  presentProviderSecrets,
  resolveEffectiveConfig,
  resolveProviderSecretUpdate,
  resolveSecretUpdate,
  validateCoreConfig,
} from '#functions/config/index.js';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { AppOrTenantNotFoundError, BadRequestError, ForbiddenError } from '#functions/shared/errors.js';
import {
  has,
  optionalBoolean,
  optionalObject,
  optionalString,
  optionalStringArrayOrNull,
  requiredString,
} from '#functions/shared/input.js';
import {
  applyLegacyFactorsCdi3,
  applyLegacyFactorsCdi5,
  applyV2Factors,
  checkNoDuplicates,
  type FactorState,
  type LegacyUpdate,
} from './factors.js';
import { normaliseAppId, normaliseTenantId } from './ids.js';
import type { AppDataPurger, AppTables, TenantStore } from './ports.js';
import type { ProviderConfig, TenantRecord } from './tenant.js';
import { checkProvidersSize, validateProviderConfig } from './thirdparty.js';
import { tenantViewLegacy, tenantViewV2 } from './views.js';

/**
 * Who calls: the path's app and tenant. The request pipeline has checked that they exist, except
 * for {@link getTenant}, which answers for a missing tenant itself.
 */
export interface Caller {
  readonly appId: string;
  readonly tenantId: string;
  /** The caller's tenant as loaded by the pipeline (undefined when it does not exist). */
  readonly tenant: TenantRecord | undefined;
  readonly cdiAtLeast5: boolean;
}

type Body = Readonly<Record<string, unknown>>;
export type ApiVersion = 'v2' | 'legacy';
export interface Deps {
  readonly store: TenantStore;
  /** The stores of everything apps own, for app and tenant removal. */
  readonly purger: AppDataPurger;
  /** The tables apps keep their data in, for `dynamodb_table_name`. */
  readonly tables: AppTables;
  readonly now: () => number;
  /** The base configuration (file + environment), against which overrides are validated. */
  readonly baseConfig: () => Promise<ConfigValues>;
  /**
   * Why the core must not call a URL's host as it resolves now (`<host> resolves to …`), or
   * undefined (also when the lookup gives no answer: every request checks again).
   */
  readonly outboundTargetProblem: (url: string) => Promise<string | undefined>;
}

function newTenant(appId: string, tenantId: string, now: number, defaults: FactorState): TenantRecord {
  return {
    appId,
    tenantId,
    ...defaults,
    coreConfig: {},
    thirdPartyProviders: [],
    createdAt: now,
    updatedAt: now,
  };
}

const ALL_ON: FactorState = {
  emailPasswordEnabled: true,
  thirdPartyEnabled: true,
  passwordlessEnabled: true,
  firstFactors: null,
  requiredSecondaryFactors: null,
};

/** Defaults of a tenant created by this request (docs/reference-behaviour.md "Creating or updating an app", "The legacy app input", "Creating or updating a tenant"). */
function creationDefaults(tenantId: string, api: ApiVersion, cdiAtLeast5: boolean): FactorState {
  if (tenantId === PUBLIC_TENANT_ID) return ALL_ON;
  if (api === 'v2') return { ...ALL_ON, firstFactors: [] };
  return {
    emailPasswordEnabled: false,
    thirdPartyEnabled: false,
    passwordlessEnabled: false,
    firstFactors: cdiAtLeast5 ? null : [],
    requiredSecondaryFactors: null,
  };
}

interface ParsedConfigInput {
  readonly factors: LegacyUpdate;
  readonly coreConfig: Record<string, unknown> | undefined;
}

/** Reads the factor, switch and coreConfig fields of an app/tenant create-or-update body. */
function parseConfigInput(body: Body, api: ApiVersion, cdiAtLeast5: boolean): ParsedConfigInput {
  if (api === 'v2') {
    if (has(body, 'emailPasswordEnabled'))
      throw new BadRequestError('emailPasswordEnabled is not a valid input for this API');
    if (has(body, 'thirdPartyEnabled')) throw new BadRequestError('thirdParty is not a valid input for this API');
    if (has(body, 'passwordlessEnabled')) throw new BadRequestError('passwordless is not a valid input for this API');
  }
  const factors: LegacyUpdate =
    api === 'v2' || cdiAtLeast5
      ? {
          firstFactors: optionalStringArrayOrNull(body, 'firstFactors'),
          requiredSecondaryFactors: optionalStringArrayOrNull(body, 'requiredSecondaryFactors'),
        }
      : {};
  const switches: LegacyUpdate =
    api === 'legacy'
      ? {
          emailPasswordEnabled: optionalBoolean(body, 'emailPasswordEnabled'),
          thirdPartyEnabled: optionalBoolean(body, 'thirdPartyEnabled'),
          passwordlessEnabled: optionalBoolean(body, 'passwordlessEnabled'),
        }
      : {};
  if (api === 'v2') {
    checkNoDuplicates('firstFactors', factors.firstFactors);
    checkNoDuplicates('requiredSecondaryFactors', factors.requiredSecondaryFactors);
  }
  return { factors: { ...factors, ...switches }, coreConfig: optionalObject(body, 'coreConfig') };
}

function applyFactors(state: FactorState, input: LegacyUpdate, api: ApiVersion, cdiAtLeast5: boolean): FactorState {
  if (api === 'v2') return applyV2Factors(state, input);
  return cdiAtLeast5 ? applyLegacyFactorsCdi5(state, input) : applyLegacyFactorsCdi3(state, input);
}

const factorState = (t: TenantRecord): FactorState => ({
  emailPasswordEnabled: t.emailPasswordEnabled,
  thirdPartyEnabled: t.thirdPartyEnabled,
  passwordlessEnabled: t.passwordlessEnabled,
  firstFactors: t.firstFactors ? [...t.firstFactors] : null,
  requiredSecondaryFactors: t.requiredSecondaryFactors ? [...t.requiredSecondaryFactors] : null,
});

/**
 * Creates or updates one tenant record (an app is its public tenant) with optimistic
 * concurrency: re-reads and re-applies on a concurrent change.
 */
async function upsertTenant(
  deps: Deps,
  appId: string,
  tenantId: string,
  input: ParsedConfigInput,
  api: ApiVersion,
  cdiAtLeast5: boolean,
): Promise<{ createdNew: boolean }> {
  for (let attempt = 0; ; attempt++) {
    const existing = await deps.store.getTenant(appId, tenantId);
    const stored = existing && existing.createdAt !== 0 ? existing : undefined;
    const now = deps.now();
    const base = existing ?? newTenant(appId, tenantId, now, creationDefaults(tenantId, api, cdiAtLeast5));
    const factors = applyFactors(factorState(base), input.factors, api, cdiAtLeast5);
    // A credential sent back as the fingerprint a response showed for it stays as stored.
    const update =
      appId === PUBLIC_TENANT_ID && tenantId === PUBLIC_TENANT_ID
        ? (input.coreConfig ?? {})
        : resolveSecretUpdate(base.coreConfig, input.coreConfig ?? {}, INVALID_CORE_CONFIG_PREFIX);
    const coreConfig = mergeCoreConfig(base.coreConfig, update);
    await validateTenantConfig(deps, appId, tenantId, coreConfig);
    if (tenantId === PUBLIC_TENANT_ID) {
      await checkHookTarget(deps, existing?.coreConfig, coreConfig);
      await checkAppTable(deps, appId, existing?.coreConfig, coreConfig);
    }
    const record: TenantRecord = {
      ...base,
      ...factors,
      coreConfig,
      createdAt: stored ? stored.createdAt : now,
      updatedAt: Math.max(now, (stored?.updatedAt ?? 0) + 1),
    };
    if (await deps.store.saveTenant(record, stored?.updatedAt)) return { createdNew: existing === undefined };
    if (attempt >= 4) throw new Error('tenant update kept conflicting with concurrent updates');
  }
}

async function validateTenantConfig(deps: Deps, appId: string, tenantId: string, merged: ConfigValues): Promise<void> {
  if (appId === PUBLIC_TENANT_ID && tenantId === PUBLIC_TENANT_ID) {
    if (Object.keys(merged).length > 0) throw new BadRequestError('Cannot modify base config');
    return;
  }
  if (tenantId === PUBLIC_TENANT_ID) {
    const others = (await deps.store.listTenants(appId))
      .filter((t) => t.tenantId !== PUBLIC_TENANT_ID)
      .map((t) => t.coreConfig);
    validateCoreConfig({ merged, level: 'app', otherTenantOverrides: others, base: await deps.baseConfig() });
  } else {
    const app = await deps.store.getTenant(appId, PUBLIC_TENANT_ID);
    validateCoreConfig({ merged, level: 'tenant', appOverrides: app?.coreConfig, base: await deps.baseConfig() });
  }
}

const HOOK_URL_KEY = 'password_migration_hook_url';

/**
 * A password-migration hook URL new to the app is refused when its host resolves to an address
 * the core never calls (docs/security.md "Outbound requests"). Only then: a stored URL is not
 * looked up again by other updates of the app, and every connection checks its addresses anyway.
 */
async function checkHookTarget(deps: Deps, stored: ConfigValues | undefined, merged: ConfigValues): Promise<void> {
  const url = merged[HOOK_URL_KEY];
  if (typeof url !== 'string' || url.trim() === '' || url === stored?.[HOOK_URL_KEY]) return;
  const problem = await deps.outboundTargetProblem(url);
  if (problem !== undefined) throw new BadRequestError(`${INVALID_CORE_CONFIG_PREFIX}${hookHostMessage(problem)}`);
}

/**
 * An app's `dynamodb_table_name` moves it to another table only when that table can hold its data
 * (DescribeTable: exists, active, this core's keys and indexes; created first by a runtime that
 * provisions tables) and the app holds nothing in the table it leaves — its users, staged users,
 * roles and metadata would otherwise stay behind, unreachable. Naming, prefix and level rules were
 * checked with the rest of the config.
 */
async function checkAppTable(
  deps: Deps,
  appId: string,
  stored: ConfigValues | undefined,
  merged: ConfigValues,
): Promise<void> {
  const base = await deps.baseConfig();
  const tableOf = (overrides: ConfigValues | undefined) =>
    resolveEffectiveConfig(base, overrides, undefined).appTableName ?? deps.tables.baseTableName();
  const from = tableOf(stored);
  const to = tableOf(merged);
  if (from === to) return;
  // The app's data first: a refused move must not create the table it would have moved to.
  const held = stored === undefined ? [] : await deps.tables.appHoldings(appId, from);
  if (held.length > 0) {
    throw new BadRequestError(
      `${INVALID_CORE_CONFIG_PREFIX}dynamodb_table_name cannot change while the app has ${listText(held)} in table '${from}': ` +
        'an app moves to another table only while it holds no data (remove it first, or create a new app)',
    );
  }
  if (to !== deps.tables.baseTableName()) {
    const problem = await deps.tables.tableProblem(to);
    if (problem !== undefined) {
      throw new BadRequestError(`${INVALID_CORE_CONFIG_PREFIX}dynamodb_table_name: ${problem}`);
    }
  }
}

/** `a`, `a and b`, `a, b and c`. */
function listText(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

export interface AppPutInput {
  readonly appId: string;
  readonly config: ParsedConfigInput;
}

/** The id an app or tenant PUT body names in `field`: `public` when missing, else as `normalise` makes it. */
function putId(body: Body, field: 'appId' | 'tenantId', normalise: (raw: string) => string): string {
  const raw = optionalString(body, field);
  return raw === undefined ? PUBLIC_TENANT_ID : normalise(raw);
}

/** The body of `PUT /recipe/multitenancy/app[/v2]`. */
export function parseAppPut(body: Body, caller: Caller, api: ApiVersion): AppPutInput {
  return { appId: putId(body, 'appId', normaliseAppId), config: parseConfigInput(body, api, caller.cdiAtLeast5) };
}

/** `PUT /recipe/multitenancy/app[/v2]` (docs/reference-behaviour.md "Creating or updating an app", "The legacy app input"). */
export async function createOrUpdateApp(deps: Deps, caller: Caller, { appId, config }: AppPutInput, api: ApiVersion) {
  const fromBase = caller.appId === PUBLIC_TENANT_ID && caller.tenantId === PUBLIC_TENANT_ID;
  const fromSameApp = caller.appId === appId && caller.tenantId === PUBLIC_TENANT_ID;
  if (!fromBase && !fromSameApp) throw new ForbiddenError('You must use the public or same app to add/update an app');
  const { createdNew } = await upsertTenant(deps, appId, PUBLIC_TENANT_ID, config, api, caller.cdiAtLeast5);
  return { status: 'OK', createdNew };
}

export interface TenantPutInput {
  readonly tenantId: string;
  readonly config: ParsedConfigInput;
}

/** The body of `PUT /recipe/multitenancy/tenant[/v2]`. */
export function parseTenantPut(body: Body, caller: Caller, api: ApiVersion): TenantPutInput {
  return {
    tenantId: putId(body, 'tenantId', normaliseTenantId),
    config: parseConfigInput(body, api, caller.cdiAtLeast5),
  };
}

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

function view(tenant: TenantRecord, api: ApiVersion, cdiAtLeast5: boolean) {
  return api === 'v2' ? tenantViewV2(tenant) : tenantViewLegacy(tenant, cdiAtLeast5);
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
  return { ...view(await deps.store.openSecrets(caller.tenant), api, caller.cdiAtLeast5), status: 'OK' };
}

/** `GET /recipe/multitenancy/tenant/list[/v2]` (docs/reference-behaviour.md "Reading and listing tenants"); providers with their secrets, as for a get. */
export async function listTenants(deps: Deps, caller: Caller, api: ApiVersion) {
  if (caller.tenantId !== PUBLIC_TENANT_ID) {
    throw new ForbiddenError('Only the public tenantId is allowed to list all tenants associated with this app');
  }
  const tenants = await Promise.all((await deps.store.listTenants(caller.appId)).map((t) => deps.store.openSecrets(t)));
  return { status: 'OK', tenants: tenants.map((t) => view(t, api, caller.cdiAtLeast5)) };
}

/** A tenant whose providers show fingerprints instead of their secrets (the app list). */
const withProviderFingerprints = (tenant: TenantRecord): TenantRecord => ({
  ...tenant,
  thirdPartyProviders: tenant.thirdPartyProviders.map(presentProviderSecrets),
});

/** `GET /recipe/multitenancy/app/list[/v2]` (docs/reference-behaviour.md "Listing apps"). */
export async function listApps(deps: Deps, caller: Caller, api: ApiVersion) {
  if (caller.appId !== PUBLIC_TENANT_ID || caller.tenantId !== PUBLIC_TENANT_ID) {
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
        view(withProviderFingerprints(t), api, caller.cdiAtLeast5),
      ),
    })),
  );
  return { status: 'OK', apps: apps.filter((a) => a.tenants.length > 0) };
}

/** The body of `POST /recipe/multitenancy/app/remove`: the app id (never `public`). */
export function parseAppRemove(body: Body): { appId: string } {
  const appId = normaliseAppId(requiredString(body, 'appId'));
  if (appId === PUBLIC_TENANT_ID) {
    throw new ForbiddenError('Cannot delete the public app, use remove connection uri domain API instead');
  }
  return { appId };
}

/**
 * `POST /recipe/multitenancy/app/remove` (docs/reference-behaviour.md "Removing an app"). Deletes everything the app owns, then its
 * public tenant last: a crash part-way leaves the app in place, and calling remove again
 * finishes the job.
 */
export async function removeApp(deps: Deps, caller: Caller, { appId }: { appId: string }) {
  if (caller.appId !== PUBLIC_TENANT_ID || caller.tenantId !== PUBLIC_TENANT_ID) {
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

/** The body of `POST /recipe/multitenancy/tenant/remove`: the tenant id (never `public`). */
export function parseTenantRemove(body: Body): { tenantId: string } {
  const tenantId = normaliseTenantId(requiredString(body, 'tenantId'));
  if (tenantId === PUBLIC_TENANT_ID)
    throw new ForbiddenError('Cannot delete public tenant, use remove app API instead');
  return { tenantId };
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

/** The body of `PUT /<t>/recipe/multitenancy/config/thirdparty`: one validated provider. */
export function parseThirdPartyPut(body: Body): ProviderConfig {
  const config = optionalObject(body, 'config');
  if (config === undefined) throw new BadRequestError("Field name 'config' is invalid in JSON input");
  const skipValidation = optionalBoolean(body, 'skipValidation') ?? false;
  return validateProviderConfig(config, skipValidation);
}

/**
 * `PUT /<t>/recipe/multitenancy/config/thirdparty` (docs/reference-behaviour.md "Third-party provider configuration"): replaces or appends one provider.
 * A secret sent back as the fingerprint a response showed for it keeps its stored value.
 */
export async function upsertThirdPartyConfig(deps: Deps, caller: Caller, provider: ProviderConfig) {
  return updateProviders(deps, caller, (providers) => {
    const index = providers.findIndex((p) => p.thirdPartyId === provider.thirdPartyId);
    const next = [...providers];
    const resolved = resolveProviderSecretUpdate(index >= 0 ? providers[index] : undefined, provider);
    if (index >= 0) next[index] = resolved;
    else next.push(resolved);
    // Only a list that is added to is measured: a removal is always possible.
    checkProvidersSize(next);
    return { providers: next, result: { status: 'OK', createdNew: index < 0 } };
  });
}

/** The body of `POST /<t>/recipe/multitenancy/config/thirdparty/remove`: the provider's id. */
export function parseThirdPartyRemove(body: Body): { thirdPartyId: string } {
  return { thirdPartyId: requiredString(body, 'thirdPartyId').trim() };
}

/** `POST /<t>/recipe/multitenancy/config/thirdparty/remove` (docs/reference-behaviour.md "Third-party provider configuration"). */
export async function removeThirdPartyConfig(deps: Deps, caller: Caller, { thirdPartyId }: { thirdPartyId: string }) {
  return updateProviders(deps, caller, (providers) => {
    const next = providers.filter((p) => p.thirdPartyId !== thirdPartyId);
    return { providers: next, result: { status: 'OK', didConfigExist: next.length !== providers.length } };
  });
}

async function updateProviders<R>(
  deps: Deps,
  caller: Caller,
  change: (providers: readonly ProviderConfig[]) => { providers: ProviderConfig[]; result: R },
): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    const current = await deps.store.getTenant(caller.appId, caller.tenantId);
    if (!current) throw new AppOrTenantNotFoundError(caller.appId, caller.tenantId);
    const { providers, result } = change(current.thirdPartyProviders);
    const stored = current.createdAt !== 0 ? current : undefined;
    const now = deps.now();
    const record: TenantRecord = {
      ...current,
      thirdPartyProviders: providers,
      createdAt: stored ? current.createdAt : now,
      updatedAt: Math.max(now, current.updatedAt + 1),
    };
    if (await deps.store.saveTenant(record, stored?.updatedAt)) return result;
    if (attempt >= 4) throw new Error('provider update kept conflicting with concurrent updates');
  }
}
