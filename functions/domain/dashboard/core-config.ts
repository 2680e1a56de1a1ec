/**
 * `GET /<t>/recipe/dashboard/tenant/core-config`: the tenant's configuration as the dashboard's
 * tenant page shows it (docs/dashboard.md "Tenants"): one entry per key an app or tenant may set,
 * from the key registry (functions/config/registry.ts), with the tenant's effective value.
 * Credentials show as the fingerprints every other response shows (docs/security.md
 * "Credentials at rest"); keys only the base configuration may set, and alternative names of a
 * key, are left out, as the reference leaves out its file-only keys.
 */
import { type EffectiveConfig, presentCoreConfig } from '#functions/config/index.js';
import { CONFIG_KEYS, type ConfigKeyDefinition, type ConfigScalar } from '#functions/config/registry.js';

/** The keys whose values are one of a fixed list (the dashboard offers a choice). */
const POSSIBLE_VALUES: Readonly<Record<string, readonly string[]>> = {
  password_hashing_alg: ['ARGON2', 'BCRYPT'],
};

/** One key as the reference's dashboard API describes it. */
interface DashboardConfigField {
  readonly key: string;
  readonly valueType: 'string' | 'boolean' | 'number' | 'enum';
  readonly value: ConfigScalar | null;
  readonly description: string;
  readonly isDifferentAcrossTenants: boolean;
  readonly possibleValues: readonly string[] | null;
  readonly isNullable: boolean;
  readonly defaultValue: ConfigScalar | null;
  readonly isPluginProperty: false;
  readonly isPluginPropertyEditable: false;
}

function valueTypeOf(definition: ConfigKeyDefinition): DashboardConfigField['valueType'] {
  if (POSSIBLE_VALUES[definition.key]) return 'enum';
  if (definition.type === 'String') return 'string';
  return definition.type === 'boolean' ? 'boolean' : 'number';
}

/** → `{status:"OK", config:[…]}` for the tenant whose effective configuration this is. */
export function dashboardCoreConfig(config: EffectiveConfig): { status: 'OK'; config: DashboardConfigField[] } {
  const shown = presentCoreConfig(config.values);
  const fields = CONFIG_KEYS.filter((d) => d.level !== 'base' && d.aliasOf === undefined).map(
    (d): DashboardConfigField => ({
      key: d.key,
      valueType: valueTypeOf(d),
      value: (shown[d.key] as ConfigScalar | null | undefined) ?? null,
      description: d.description,
      isDifferentAcrossTenants: d.level === 'tenant',
      possibleValues: POSSIBLE_VALUES[d.key] ?? null,
      isNullable: d.default === null,
      defaultValue: d.default,
      isPluginProperty: false,
      isPluginPropertyEditable: false,
    }),
  );
  return { status: 'OK', config: fields };
}
