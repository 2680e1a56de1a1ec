/** Type checks and conversions of config values, per the registry's JSON types. */
import type { ConfigKeyDefinition, ConfigScalar, ConfigType } from './registry.js';

const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * True when a JSON value has the key's type. JSON `null` is "unset" and always accepted.
 * long/int/Integer: JSON integers only (a quoted number, `""` or `"null"` fails; int and Integer
 * also within 32 bits). double: any finite JSON number. boolean: `true`/`false` or the strings
 * `"true"`/`"false"`. String: JSON strings only.
 */
export function hasConfigType(type: ConfigType, value: unknown): boolean {
  if (value === null) return true;
  switch (type) {
    case 'long':
      return isInteger(value);
    case 'int':
    case 'Integer':
      return isInteger(value) && value >= INT_MIN && value <= INT_MAX;
    case 'double':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean' || value === 'true' || value === 'false';
    case 'String':
      return typeof value === 'string';
  }
}

/** `'<key>' must be of type <type>` (without the `Invalid core config: ` prefix). */
export function typeErrorMessage(definition: ConfigKeyDefinition): string {
  return `'${definition.key}' must be of type ${definition.type}`;
}

/**
 * The typed value of a stored or configured value: booleans given as strings become booleans;
 * `null`/`undefined` and values of the wrong type become `undefined` (treated as unset).
 */
export function normaliseConfigValue(type: ConfigType, value: unknown): ConfigScalar | undefined {
  if (value === null || value === undefined || !hasConfigType(type, value)) return undefined;
  if (type === 'boolean') return value === true || value === 'true';
  return value as ConfigScalar;
}

/**
 * Parses an environment variable's text to the key's type. Numbers: decimal text (integers for
 * long/int/Integer); booleans: `true`/`false` in any case; strings: taken as they are.
 * Returns undefined when the text does not parse.
 */
export function parseEnvConfigValue(type: ConfigType, raw: string): ConfigScalar | undefined {
  const text = raw.trim();
  switch (type) {
    case 'long':
    case 'int':
    case 'Integer': {
      if (!/^[-+]?\d+$/.test(text)) return undefined;
      const n = Number(text);
      return hasConfigType(type, n) ? n : undefined;
    }
    case 'double': {
      if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined;
      const n = Number(text);
      return Number.isFinite(n) ? n : undefined;
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (lower === 'true') return true;
      if (lower === 'false') return false;
      return undefined;
    }
    case 'String':
      return raw;
  }
}
