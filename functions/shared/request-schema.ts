/**
 * A route's request as one zod schema (the mini build: the same validation without the full API's
 * methods, and their weight, in every function's bundle), read with the reference core's
 * generic-parser messages. The handler declares the schemas (`request: { body, query }`,
 * functions/http/pipeline.ts), the pipeline parses with them, and the API description's request
 * side is generated from the same objects (bin/openapi/build.ts, through
 * bin/openapi/request-schemas.ts).
 *
 * Messages: each field builder below names the generic message it fails with, with `{field}` for
 * the field; {@link parseRequest} puts the first failing field's name in it. Fields are checked in
 * the order the object lists them, so the first failing one in that order decides the message, as
 * the reference's readers do. A sentence of a feature's own (`Field name 'role' cannot be an empty
 * String`) comes from a rule run on the field's or the object's value ({@link rule}), which throws
 * the core's 400 (BadRequestError) as the feature's readers always have.
 */
import * as z from 'zod/mini';
import { BadRequestError } from './errors.js';

const FIELD = '{field}';
const INVALID_IN_JSON = `Field name '${FIELD}' is invalid in JSON input`;
const MISSING_IN_GET = `Field name '${FIELD}' is missing in GET request`;
const NOT_AN_INT_IN_GET = `Field name '${FIELD}' must be an int in the GET request`;

/** Any schema of a request part (a body or a query). */
export type RequestSchema = z.ZodMiniType<unknown, unknown>;

/** How the API description shows a field whose JSON Schema would say less (or more) than the contract. */
interface DescribedAs {
  readonly jsonSchema: Record<string, unknown>;
}
const descriptions = z.registry<DescribedAs>();
const describedAs = <S extends z.ZodMiniType>(schema: S, jsonSchema: Record<string, unknown>): S => {
  descriptions.add(schema, { jsonSchema });
  return schema;
};

/**
 * The schemas of a route's request: the pipeline (functions/http/pipeline.ts) parses the body and
 * the query with them, in that order, and the API description's request side is generated from
 * them (bin/openapi/request-schemas.ts names each route's).
 */
export interface RequestSchemas {
  readonly body?: RequestSchema;
  readonly query?: RequestSchema;
}

/**
 * Shows a field in the API description as `jsonSchema` says: the values a rule accepts (an enum),
 * or the type callers send where the reader is more lenient.
 */
export const shownAs = <S extends z.ZodMiniType>(jsonSchema: Record<string, unknown>, schema: S): S =>
  describedAs(schema, jsonSchema);

// ---- Body fields (JSON): `Field name '<f>' is invalid in JSON input` ----

/** A JSON string. Absent (when required), null or another type: invalid. */
export const jsonString = () => z.string({ error: INVALID_IN_JSON });

/**
 * A JSON boolean; like the reference, a number is accepted and read as false, a quoted "true" is
 * not. Described as a boolean (what callers send).
 */
export const jsonBoolean = () =>
  describedAs(
    z.union(
      [
        z.boolean(),
        z.pipe(
          z.number(),
          z.transform(() => false),
        ),
      ],
      { error: INVALID_IN_JSON },
    ),
    {
      type: 'boolean',
    },
  );

/** A JSON object (not null, not an array); its keys as given. */
export const jsonObject = () =>
  describedAs(z.record(z.string(), z.unknown(), { error: INVALID_IN_JSON }), { type: 'object' });

const JAVA_INT_MAX = 2_147_483_647;

/**
 * A Java `int`, read as the reference's parser reads one: a JSON number (its fraction dropped) or
 * a string of decimal digits. Anything else — null, a boolean, other text — and, unlike the
 * reference (which wraps it around), a value beyond the `int` range is invalid. Described as an
 * integer (what callers send).
 */
export const javaInt = () =>
  describedAs(
    z.pipe(
      z.union([z.number(), z.string().check(z.regex(/^[+-]?\d+$/))], { error: INVALID_IN_JSON }),
      z.transform((value, ctx) => {
        const parsed =
          typeof value === 'number' ? (Number.isFinite(value) ? Math.trunc(value) : Number.NaN) : Number(value);
        if (!Number.isFinite(parsed) || Math.abs(parsed) > JAVA_INT_MAX) {
          ctx.issues.push({ code: 'custom', message: INVALID_IN_JSON, input: value });
          return z.NEVER;
        }
        return parsed === 0 ? 0 : parsed;
      }),
    ),
    { type: 'integer' },
  );

/**
 * A Java `long`: a JSON number (its fraction dropped) or a string of decimal digits; beyond ±2^53
 * (what a number holds exactly) it is invalid. Shown as what it accepts.
 */
export const javaLong = () =>
  describedAs(
    z.pipe(
      z.union([z.number(), z.string().check(z.regex(/^[+-]?\d+$/))], { error: INVALID_IN_JSON }),
      z.transform((value, ctx) => {
        const parsed = typeof value === 'number' ? Math.trunc(value) : Number(value);
        if (!Number.isSafeInteger(parsed)) {
          ctx.issues.push({ code: 'custom', message: INVALID_IN_JSON, input: value });
          return z.NEVER;
        }
        return parsed === 0 ? 0 : parsed;
      }),
    ),
    { type: ['integer', 'string'] },
  );

/** A JSON array of anything (its elements judged later). */
export const jsonArray = () => z.array(z.unknown(), { error: INVALID_IN_JSON });

/**
 * A JSON string read only when it is one: any other value, null included, is read as absent (the
 * reference reads such a field later, or not at all). Shown as a string.
 */
export const stringOrIgnored = () =>
  z.optional(
    describedAs(
      z.pipe(
        z.unknown(),
        z.transform((value) => (typeof value === 'string' ? value : undefined)),
      ),
      { type: 'string' },
    ),
  );

/** Absent → undefined; present, even null, must be the field's type. */
export const optional = <S extends z.ZodMiniType>(schema: S) => z.optional(schema);

/** Absent → undefined, JSON null → null, else the field's type. */
export const optionalOrNull = <S extends z.ZodMiniType>(schema: S) => z.optional(z.nullable(schema));

// ---- Query fields (GET, DELETE): strings by nature ----

/** A query parameter: `Field name '<f>' is missing in GET request` when absent. */
export const queryString = () => z.string({ error: MISSING_IN_GET });

/** An optional query parameter (any text). */
export const optionalQuery = () => z.optional(z.string());

/** An optional `int` query parameter: `Field name '<f>' must be an int in the GET request` otherwise. */
export const queryInt = () =>
  z.optional(
    describedAs(
      z.pipe(
        z.string(),
        z.transform((value, ctx) => {
          const trimmed = value.trim();
          const parsed = /^-?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
          if (!Number.isSafeInteger(parsed) || Math.abs(parsed) > JAVA_INT_MAX) {
            ctx.issues.push({ code: 'custom', message: NOT_AN_INT_IN_GET, input: value });
            return z.NEVER;
          }
          return parsed;
        }),
      ),
      { type: 'integer' },
    ),
  );

// ---- Rules a schema cannot say ----

/**
 * A feature's own rule on a value that passed its schema: it returns the value the use case gets
 * (trimmed, normalised) or throws the core's 400 (BadRequestError) with the feature's sentence,
 * which becomes the field's issue. On a field it counts in the object's order (an earlier field's
 * failure still decides the message); on the object it runs once every field passed.
 */
export const rule = <S extends z.ZodMiniType, O>(schema: S, check: (value: z.output<S>) => O) =>
  z.pipe(
    schema,
    z.transform((value, ctx) => {
      try {
        return check(value as z.output<S>);
      } catch (error) {
        if (!(error instanceof BadRequestError) || error.constructor !== BadRequestError) throw error;
        ctx.issues.push({ code: 'custom', message: error.message, input: value });
        return z.NEVER;
      }
    }),
  );

// ---- Reading ----

/**
 * Parses `value` with `schema`; the first failing field's message (in the schema's order) is the
 * core's 400. A field's issue without a message of its own is the generic one of its part (body or
 * query).
 */
export function parseRequest<S extends RequestSchema>(
  schema: S,
  value: unknown,
  part: 'body' | 'query' = 'body',
): z.output<S> {
  const result = schema.safeParse(value, { error: () => (part === 'body' ? INVALID_IN_JSON : MISSING_IN_GET) });
  if (result.success) return result.data as z.output<S>;
  const issue = result.error.issues[0];
  const field = String(issue?.path[0] ?? '');
  throw new BadRequestError((issue?.message ?? INVALID_IN_JSON).replaceAll(FIELD, field));
}

/**
 * The JSON Schema (2020-12) of what a request part accepts, for the API description.
 * @internal Read by the description's generator (bin/openapi/build.ts) and its tests, which do not ship.
 */
export function requestJsonSchema(schema: RequestSchema): Record<string, unknown> {
  const { $schema: _, ...jsonSchema } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    override: (ctx) => {
      const described = descriptions.get(ctx.zodSchema);
      if (described) {
        const { description } = ctx.jsonSchema;
        for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
        Object.assign(ctx.jsonSchema, described.jsonSchema, description === undefined ? {} : { description });
      }
    },
  }) as Record<string, unknown>;
  return jsonSchema;
}
