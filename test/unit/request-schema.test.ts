/**
 * The shared request-schema layer (functions/shared/request-schema.ts): whatever JSON a field
 * holds, a request is either read or refused with the core's 400 and the first failing field's
 * generic message — never another kind of error — and the reference's quirks hold (a number read
 * as false for a boolean, numeric strings for a Java int, null against absent).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { BadRequestError } from '#functions/shared/errors.js';
import {
  javaInt,
  jsonBoolean,
  jsonObject,
  jsonString,
  optional,
  optionalOrNull,
  parseRequest,
  queryInt,
  queryString,
  rule,
} from '#functions/shared/request-schema.js';
import { REQUEST_SCHEMAS } from '../../bin/openapi/request-schemas.js';

const invalid = (field: string) => `Field name '${field}' is invalid in JSON input`;

/** What `parse` throws, as status and message (undefined when it reads the value). */
function refusal(parse: () => unknown): { status: number; message: string } | undefined {
  try {
    parse();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return { status: (error as BadRequestError).statusCode, message: (error as Error).message };
  }
}

const isPlainObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isJavaInt = (v: unknown) =>
  (typeof v === 'number' && Math.abs(Math.trunc(v)) <= 2_147_483_647) ||
  (typeof v === 'string' && /^[+-]?\d+$/.test(v) && Math.abs(Number(v)) <= 2_147_483_647);

/** Each body field builder, with what it accepts. */
const FIELDS = [
  { name: 'string', schema: jsonString(), accepts: (v: unknown) => typeof v === 'string' },
  { name: 'boolean', schema: jsonBoolean(), accepts: (v: unknown) => typeof v === 'boolean' || typeof v === 'number' },
  { name: 'object', schema: jsonObject(), accepts: isPlainObject },
  { name: 'int', schema: javaInt(), accepts: isJavaInt },
] as const;

describe('body fields', () => {
  for (const field of FIELDS) {
    it(`${field.name}: a value of another type is 400 with the field's message; its own type is read`, () => {
      const schema = z.object({ first: jsonString(), value: field.schema, last: jsonString() });
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const outcome = refusal(() => parseRequest(schema, { first: 'a', value, last: 'z' }));
          if (field.accepts(value)) expect(outcome).toBeUndefined();
          else expect(outcome).toEqual({ status: 400, message: invalid('value') });
        }),
      );
    });

    it(`${field.name}: absent is invalid when required, undefined when optional; null is invalid unless allowed`, () => {
      expect(refusal(() => parseRequest(z.object({ value: field.schema }), {}))).toEqual({
        status: 400,
        message: invalid('value'),
      });
      expect(parseRequest(z.object({ value: optional(field.schema) }), {})).toEqual({});
      expect(refusal(() => parseRequest(z.object({ value: optional(field.schema) }), { value: null }))?.message).toBe(
        invalid('value'),
      );
      expect(parseRequest(z.object({ value: optionalOrNull(field.schema) }), { value: null })).toEqual({ value: null });
    });
  }

  it('the first failing field in the schema order decides the message, whatever the others hold', () => {
    const schema = z.object({ a: jsonString(), b: jsonBoolean(), c: jsonObject(), d: javaInt() });
    const wrong = fc.constantFrom<unknown>(null, [], 'x', 1.5, true, { k: 1 });
    fc.assert(
      fc.property(fc.record({ a: wrong, b: wrong, c: wrong, d: wrong }, { requiredKeys: [] }), (body) => {
        const first = (['a', 'b', 'c', 'd'] as const).find((key) => {
          const accepts = [FIELDS[0], FIELDS[1], FIELDS[2], FIELDS[3]][['a', 'b', 'c', 'd'].indexOf(key)]?.accepts;
          return !(key in body) || !accepts?.(body[key]);
        });
        const outcome = refusal(() => parseRequest(schema, body));
        expect(outcome).toEqual(first === undefined ? undefined : { status: 400, message: invalid(first) });
      }),
    );
  });

  it("keeps the reference's quirks: a number is false, numeric strings are ints, fractions dropped", () => {
    const schema = z.object({ flag: jsonBoolean(), count: javaInt() });
    expect(parseRequest(schema, { flag: 1, count: '42' })).toEqual({ flag: false, count: 42 });
    expect(parseRequest(schema, { flag: true, count: -3.9 })).toEqual({ flag: true, count: -3 });
    expect(refusal(() => parseRequest(schema, { flag: 'true', count: 1 }))?.message).toBe(invalid('flag'));
    expect(refusal(() => parseRequest(schema, { flag: true, count: 2_147_483_648 }))?.message).toBe(invalid('count'));
  });

  it("a rule's sentence counts in the field's order, after an earlier field's failure", () => {
    const trimmed = rule(jsonString(), (v) => {
      if (v.trim() === '') throw new BadRequestError("Field name 'b' cannot be an empty String");
      return v.trim();
    });
    const schema = z.object({ a: jsonString(), b: trimmed });
    expect(refusal(() => parseRequest(schema, { a: 1, b: ' ' }))?.message).toBe(invalid('a'));
    expect(refusal(() => parseRequest(schema, { a: 'x', b: ' ' }))?.message).toBe(
      "Field name 'b' cannot be an empty String",
    );
    expect(parseRequest(schema, { a: 'x', b: ' y ' })).toEqual({ a: 'x', b: 'y' });
  });
});

describe('query fields', () => {
  it('a missing parameter is `missing in GET request`; an int that is not one is `must be an int`', () => {
    const schema = z.object({ userId: queryString(), limit: queryInt() });
    fc.assert(
      fc.property(
        fc.option(fc.string(), { nil: undefined }),
        fc.option(fc.string(), { nil: undefined }),
        (userId, limit) => {
          const outcome = refusal(() => parseRequest(schema, { userId, limit }, 'query'));
          const intLike =
            limit === undefined || (/^-?\d+$/.test(limit.trim()) && Math.abs(Number(limit.trim())) <= 2_147_483_647);
          if (userId === undefined) expect(outcome?.message).toBe("Field name 'userId' is missing in GET request");
          else if (!intLike) expect(outcome?.message).toBe("Field name 'limit' must be an int in the GET request");
          else expect(outcome).toBeUndefined();
        },
      ),
    );
  });
});

describe("every route's request schemas", () => {
  it('read any JSON body or query, or refuse it with a 400 (never another error)', () => {
    for (const [id, schemas] of Object.entries(REQUEST_SCHEMAS)) {
      fc.assert(
        fc.property(
          fc.dictionary(fc.string(), fc.jsonValue()),
          fc.dictionary(fc.string(), fc.string()),
          (body, query) => {
            if (schemas.body) refusal(() => parseRequest(schemas.body as never, body));
            if (schemas.query) refusal(() => parseRequest(schemas.query as never, query, 'query'));
          },
        ),
        { numRuns: 50 },
      );
      expect(id).toBeTruthy();
    }
  });
});
