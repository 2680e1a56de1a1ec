/** Layering of config values: registry defaults → base → app → tenant (later layers win). */
import { CONFIG_KEYS, type ConfigScalar } from './registry.js';
import { normaliseConfigValue } from './values.js';

export type ConfigValues = Readonly<Record<string, unknown>>;

/** Typed values of the registry's canonical keys (aliases folded in); `null` = unset. */
export type TypedConfig = ReadonlyMap<string, ConfigScalar | null>;

/** Canonical (non-alias) keys, in registry order. */
export const CANONICAL_KEYS = CONFIG_KEYS.filter((d) => d.aliasOf === undefined);

/**
 * The keys one layer sets, typed and keyed by canonical name. An alias counts only when the layer
 * does not set the key it stands for. Unknown keys, nulls and wrongly typed values are skipped.
 */
export function layerValues(values: ConfigValues | undefined): Map<string, ConfigScalar> {
  const out = new Map<string, ConfigScalar>();
  if (!values) return out;
  for (const definition of CONFIG_KEYS) {
    const typed = normaliseConfigValue(definition.type, values[definition.key]);
    if (typed === undefined) continue;
    const target = definition.aliasOf ?? definition.key;
    if (definition.aliasOf !== undefined && out.has(target)) continue;
    out.set(target, typed);
  }
  // A canonical key set in the same layer beats its alias whatever the registry order.
  for (const definition of CANONICAL_KEYS) {
    const typed = normaliseConfigValue(definition.type, values[definition.key]);
    if (typed !== undefined) out.set(definition.key, typed);
  }
  return out;
}

/** Registry defaults overlaid with each layer in turn. */
export function layeredConfig(layers: readonly (ConfigValues | undefined)[]): Map<string, ConfigScalar | null> {
  const out = new Map<string, ConfigScalar | null>();
  for (const definition of CANONICAL_KEYS) out.set(definition.key, definition.default);
  for (const layer of layers) {
    for (const [key, value] of layerValues(layer)) out.set(key, value);
  }
  return out;
}
