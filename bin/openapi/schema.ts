/**
 * Small builders for the JSON Schemas (2020-12, the dialect of OpenAPI 3.1) of the API description
 * (bin/openapi/build.ts): one spelling per shape, so the operations table reads as the API does.
 */

export type Schema = Record<string, unknown>;

export const str: Schema = { type: 'string' };
export const bool: Schema = { type: 'boolean' };
export const int: Schema = { type: 'integer' };
export const num: Schema = { type: 'number' };
export const anyObject: Schema = { type: 'object' };
export const anyJson: Schema = {};
export const strings: Schema = { type: 'array', items: str };

export const arr = (items: Schema): Schema => ({ type: 'array', items });
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: 'null' }] });
export const described = (description: string, schema: Schema): Schema => ({ ...schema, description });

/** An object with these properties; `required` lists the ones always present (or required). */
export function obj(properties: Record<string, Schema>, required: readonly string[] = []): Schema {
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required: [...required] } : {}),
  };
}

/** An object of exactly these properties: what the core answers, no key more. */
export const closed = (schema: Schema): Schema => ({ ...schema, additionalProperties: false });

/** A `{status: "<name>", …}` answer of exactly these keys; each is present unless listed optional. */
export function status(
  name: string,
  properties: Record<string, Schema> = {},
  optional: readonly string[] = [],
): Schema {
  return closed(
    obj({ status: { const: name }, ...properties }, [
      'status',
      ...Object.keys(properties).filter((key) => !optional.includes(key)),
    ]),
  );
}

/** The `OK` answer with these properties (all present unless listed optional). */
export const okWith = (properties: Record<string, Schema> = {}, optional: readonly string[] = []): Schema =>
  status('OK', properties, optional);
