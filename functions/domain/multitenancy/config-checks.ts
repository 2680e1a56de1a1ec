/**
 * What a tenant's or an app's configuration overrides must satisfy before they are saved, beyond
 * each value's own rules: the level they are set at (docs/reference-behaviour.md "Core
 * configuration overrides"), a password-migration hook the core may call, a table the app may move to.
 */
import {
  type ConfigValues,
  hookHostMessage,
  INVALID_CORE_CONFIG_PREFIX,
  resolveEffectiveConfig,
  validateCoreConfig,
} from '#functions/config/index.js';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { BadRequestError } from '#functions/shared/errors.js';
import type { Deps } from './deps.js';
import { isBaseTenant } from './tenant.js';

/**
 * Checks the merged overrides of one tenant: the base tenant takes none (its configuration is the
 * file and the environment), an app's against its tenants' and the base, a tenant's against its app's.
 * An app's also has its hook URL and table checked (below), when they change.
 */
export async function checkTenantConfig(
  deps: Deps,
  appId: string,
  tenantId: string,
  stored: ConfigValues | undefined,
  merged: ConfigValues,
): Promise<void> {
  if (isBaseTenant(appId, tenantId)) {
    if (Object.keys(merged).length > 0) throw new BadRequestError('Cannot modify base config');
  } else if (tenantId === PUBLIC_TENANT_ID) {
    const others = (await deps.store.listTenants(appId))
      .filter((t) => t.tenantId !== PUBLIC_TENANT_ID)
      .map((t) => t.coreConfig);
    validateCoreConfig({ merged, level: 'app', otherTenantOverrides: others, base: await deps.baseConfig() });
  } else {
    const app = await deps.store.getTenant(appId, PUBLIC_TENANT_ID);
    validateCoreConfig({ merged, level: 'tenant', appOverrides: app?.coreConfig, base: await deps.baseConfig() });
  }
  if (tenantId === PUBLIC_TENANT_ID) {
    await checkHookTarget(deps, stored, merged);
    await checkAppTable(deps, appId, stored, merged);
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
