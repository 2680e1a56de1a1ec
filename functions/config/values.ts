/** Type checks and conversions of config values, per the registry's JSON types. */
import type { ConfigKeyDefinition, ConfigScalar, ConfigType } from './registry.js';

const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * The reference core maps a coreConfig value onto its typed field with Gson's conversions, so a
 * number key also takes a JSON string holding a number (what `Integer.parseInt` / `Long.parseLong` /
 * `Double.parseDouble` accept), and a boolean key the strings `true`/`false` in any case:
 *
 * - long, int, Integer: an optional sign and ASCII digits, nothing else (`"5"`, `"+5"`, `"-05"`; not
 *   `" 5 "`, `"5.0"`, `"1e3"`); int and Integer within 32 bits, long within ±(2^53 − 1) here.
 * - double: a decimal number, optionally with an exponent and Java's `f`/`d` suffix, surrounded by
 *   any whitespace or control characters (`"0.001"`, `" 5 "`, `"1e3"`, `".5"`, `"5."`, `"2d"`).
 *   `NaN`, `Infinity` and hexadecimal forms, which Java also parses, are refused here: no key of
 *   this core has a use for them (docs/reference-behaviour.md "Core configuration overrides").
 * - boolean: `true`/`false`, or a string that is `true`/`false` ignoring case (`"TRUE"`; not `" true"`).
 * - String: JSON strings only (the reference would also take a number's or a boolean's text).
 */
const INTEGER_TEXT = /^[+-]?\d+$/;
const DECIMAL_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?$/;

/** Java's `String.trim()`: every character up to U+0020 removed at either end. */
function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return text.slice(start, end);
}

/** The number a JSON value of a number key stands for (a JSON number, or a string as above), or undefined. */
function numberOf(type: 'long' | 'int' | 'Integer' | 'double', value: unknown): number | undefined {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value !== 'string') return undefined;
  else if (type === 'double') {
    const text = javaTrim(value);
    if (!DECIMAL_TEXT.test(text)) return undefined;
    n = Number(text.replace(/[fFdD]$/, ''));
  } else {
    if (!INTEGER_TEXT.test(value)) return undefined;
    n = Number(value);
  }
  if (type === 'double') return Number.isFinite(n) ? n : undefined;
  if (!isInteger(n)) return undefined;
  if (type !== 'long' && (n < INT_MIN || n > INT_MAX)) return undefined;
  return n === 0 ? 0 : n;
}

/** A boolean key's value: JSON booleans, or `true`/`false` in any case. */
function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const lower = value.toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : undefined;
}

/** The typed value of a non-null JSON value of a key of `type`, or undefined when it has another type. */
function typedValue(type: ConfigType, value: unknown): ConfigScalar | undefined {
  switch (type) {
    case 'long':
    case 'int':
    case 'Integer':
    case 'double':
      return numberOf(type, value);
    case 'boolean':
      return booleanOf(value);
    case 'String':
      return typeof value === 'string' ? value : undefined;
  }
}

/**
 * True when a JSON value has the key's type (see the forms above). JSON `null` is "unset" and
 * always accepted.
 */
export function hasConfigType(type: ConfigType, value: unknown): boolean {
  return value === null || typedValue(type, value) !== undefined;
}

/** `'<key>' must be of type <type>` (without the `Invalid core config: ` prefix). */
export function typeErrorMessage(definition: ConfigKeyDefinition): string {
  return `'${definition.key}' must be of type ${definition.type}`;
}

/**
 * The typed value of a stored or configured value: numbers and booleans given as strings become
 * numbers and booleans (a coreConfig is stored as it was given, and read through this);
 * `null`/`undefined` and values of the wrong type become `undefined` (treated as unset).
 */
export function normaliseConfigValue(type: ConfigType, value: unknown): ConfigScalar | undefined {
  if (value === null || value === undefined) return undefined;
  return typedValue(type, value);
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
