/**
 * An app's effective configuration: the base configuration (a file and the environment) under the
 * app's own overrides — its public tenant's coreConfig — and, for a request to another of its
 * tenants, that tenant's overrides. The one place wiring resolves it: every request (request.ts),
 * the workers, which know an app only by id (staged-apps.ts), and app and tenant deletion
 * (multitenancy.ts) come here.
 */
import {
  type ConfigValues,
  type EffectiveConfig,
  getBaseConfig,
  resolveEffectiveConfig,
} from '#functions/config/index.js';

/** A configuration layer: a tenant record, or just its overrides. */
export interface ConfigLayer {
  readonly coreConfig: ConfigValues;
}

/**
 * The effective configuration of `appId` (its `app` layer: the public tenant; undefined when the
 * app does not exist, which leaves the base) or, with `tenant`, of that tenant.
 */
export function effectiveConfig(
  base: ConfigValues,
  appId: string,
  app: ConfigLayer | undefined,
  tenant?: ConfigLayer,
): EffectiveConfig {
  return resolveEffectiveConfig(base, app?.coreConfig, tenant && tenant !== app ? tenant.coreConfig : undefined, appId);
}

/** {@link effectiveConfig} of an app whose layer is already read, over the base configuration as it is now. */
export async function appConfigOf(appId: string, app: ConfigLayer): Promise<EffectiveConfig> {
  return effectiveConfig(await getBaseConfig(), appId, app);
}
