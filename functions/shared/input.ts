import { BadRequestError, invalidFieldMessage } from './errors.js';

/**
 * Field readers with the reference core's generic-parser rules and messages
 * (`Field name '<f>' is invalid in JSON input`, `… is missing in GET request`, …).
 */
type Body = Readonly<Record<string, unknown>>;

export function has(body: Body, name: string): boolean {
  return Object.hasOwn(body, name);
}

export function optionalString(body: Body, name: string): string | undefined {
  if (!has(body, name)) return undefined;
  const value = body[name];
  if (typeof value !== 'string') throw new BadRequestError(invalidFieldMessage(name));
  return value;
}

export function requiredString(body: Body, name: string): string {
  const value = optionalString(body, name);
  if (value === undefined) throw new BadRequestError(invalidFieldMessage(name));
  return value;
}

/** JSON booleans; like the reference, a number is accepted and read as false, a quoted "true" is not. */
export function optionalBoolean(body: Body, name: string): boolean | undefined {
  if (!has(body, name)) return undefined;
  const value = body[name];
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return false;
  throw new BadRequestError(invalidFieldMessage(name));
}

export function optionalObject(body: Body, name: string): Record<string, unknown> | undefined {
  if (!has(body, name)) return undefined;
  const value = body[name];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequestError(invalidFieldMessage(name));
  }
  return value as Record<string, unknown>;
}

/** absent → undefined, JSON null → null, array of strings → the array. */
export function optionalStringArrayOrNull(body: Body, name: string): string[] | null | undefined {
  if (!has(body, name)) return undefined;
  const value = body[name];
  if (value === null) return null;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new BadRequestError(invalidFieldMessage(name));
  }
  return value as string[];
}

type Query = Readonly<Record<string, string | undefined>>;

export function requiredQuery(query: Query, name: string): string {
  const value = query[name];
  if (value === undefined) throw new BadRequestError(`Field name '${name}' is missing in GET request`);
  return value;
}

export function optionalIntQuery(query: Query, name: string): number | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim()))
    throw new BadRequestError(`Field name '${name}' must be an int in the GET request`);
  const parsed = Number(value.trim());
  if (!Number.isSafeInteger(parsed) || Math.abs(parsed) > 2_147_483_647) {
    throw new BadRequestError(`Field name '${name}' must be an int in the GET request`);
  }
  return parsed;
}
