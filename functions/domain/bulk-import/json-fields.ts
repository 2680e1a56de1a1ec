/**
 * Typed readers of JSON fields with the reference's messages: a field of the wrong type reports
 * `<field> should be of type <type><suffix>`, a missing required one `<field> is required<suffix>`.
 * Errors are collected into the caller's list, never thrown, so validation reports every problem.
 */
import { isJsonObject, type JsonObject } from '#functions/contract/json.js';

const NON_BLANK = /\S/;

function isNonBlankString(value: unknown): value is string {
  return typeof value === 'string' && NON_BLANK.test(value);
}

function typeError(errors: string[], key: string, type: string, suffix: string): undefined {
  errors.push(`${key} should be of type ${type}${suffix}`);
  return undefined;
}

/** True when the key is present (an explicit JSON null counts as present); records "required" otherwise. */
function present(obj: JsonObject, key: string, required: boolean, errors: string[], suffix: string): boolean {
  if (Object.hasOwn(obj, key)) return true;
  if (required) errors.push(`${key} is required${suffix}`);
  return false;
}

export function readString(
  obj: JsonObject,
  key: string,
  required: boolean,
  errors: string[],
  suffix: string,
): string | undefined {
  if (!present(obj, key, required, errors, suffix)) return undefined;
  const value = obj[key];
  return isNonBlankString(value) ? value : typeError(errors, key, 'string', suffix);
}

/** The range of a Java `int` field (TOTP `period`, `skew`). */
export const INT_RANGE = 2_147_483_647;

/**
 * Any JSON number, fraction truncated (`integer` in messages, also for long fields), within
 * ±`max` (default: the safe integers, a Java `long` field's range as far as JSON numbers are exact);
 * beyond it the type error, as for a number the field's Java type cannot hold.
 */
export function readInteger(
  obj: JsonObject,
  key: string,
  required: boolean,
  errors: string[],
  suffix: string,
  max: number = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (!present(obj, key, required, errors, suffix)) return undefined;
  const value = obj[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) return typeError(errors, key, 'integer', suffix);
  const integer = Math.trunc(value);
  return Math.abs(integer) <= max ? integer : typeError(errors, key, 'integer', suffix);
}

export function readBoolean(
  obj: JsonObject,
  key: string,
  required: boolean,
  errors: string[],
  suffix: string,
): boolean | undefined {
  if (!present(obj, key, required, errors, suffix)) return undefined;
  const value = obj[key];
  return typeof value === 'boolean' ? value : typeError(errors, key, 'boolean', suffix);
}

export function readObject(
  obj: JsonObject,
  key: string,
  required: boolean,
  errors: string[],
  suffix: string,
): JsonObject | undefined {
  if (!present(obj, key, required, errors, suffix)) return undefined;
  const value = obj[key];
  return isJsonObject(value) ? value : typeError(errors, key, 'object', suffix);
}

export function readArrayOfObject(
  obj: JsonObject,
  key: string,
  required: boolean,
  errors: string[],
  suffix: string,
): JsonObject[] | undefined {
  if (!present(obj, key, required, errors, suffix)) return undefined;
  const value = obj[key];
  return Array.isArray(value) && value.every(isJsonObject)
    ? (value as JsonObject[])
    : typeError(errors, key, 'array of object', suffix);
}

/** Every element a non-blank string; `[]` is fine. */
export function readArrayOfString(
  obj: JsonObject,
  key: string,
  required: boolean,
  errors: string[],
  suffix: string,
): string[] | undefined {
  if (!present(obj, key, required, errors, suffix)) return undefined;
  const value = obj[key];
  return Array.isArray(value) && value.every(isNonBlankString)
    ? (value as string[])
    : typeError(errors, key, 'array of string', suffix);
}
