import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  derivedIds,
  IDEMPOTENCY_LEASE_MS,
  idempotencyKeyOf,
  requestDigest,
} from '#functions/domain/bulk-import/idempotency.js';
import { ROUTES } from '#functions/routes.js';
import { BadRequestError } from '#functions/shared/errors.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('Idempotency-Key values', () => {
  it('accepts exactly 1 to 255 characters from ! to ~, and refuses anything else with the 400 text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ maxLength: 300 })), (value) => {
        const valid = value.length >= 1 && value.length <= 255 && [...value].every((c) => c >= '!' && c <= '~');
        let refused: unknown;
        try {
          expect(idempotencyKeyOf(value)).toBe(value);
        } catch (error) {
          refused = error;
        }
        if (valid) expect(refused).toBeUndefined();
        else {
          expect(refused).toBeInstanceOf(BadRequestError);
          expect((refused as Error).message).toBe('Idempotency-Key must be 1 to 255 printable ASCII characters');
        }
      }),
    );
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
    expect(idempotencyKeyOf('~'.repeat(255))).toBe('~'.repeat(255));
    expect(() => idempotencyKeyOf('~'.repeat(256))).toThrow(BadRequestError);
    expect(() => idempotencyKeyOf('a b')).toThrow(BadRequestError);
  }, 30_000);
});

describe('ids derived from a claim', () => {
  it('are UUID v4 shaped, the same for the same generation, round and place, and distinct otherwise', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('hex')),
        fc.nat(4),
        fc.nat(9_999),
        (generation, round, index) => {
          const first = derivedIds(generation, round, index);
          const again = derivedIds(generation, round, index);
          const a = [first(), first(), first()];
          expect([again(), again(), again()]).toEqual(a);
          for (const id of a) expect(id).toMatch(UUID_V4);
          expect(new Set(a).size).toBe(3);
          expect(derivedIds(generation, round + 1, index)()).not.toBe(a[0]);
          expect(derivedIds(generation, round, index + 1)()).not.toBe(a[0]);
          expect(derivedIds(`${generation}0`, round, index)()).not.toBe(a[0]);
        },
      ),
    );
  });

  it('give every user of a 10,000-user request its own ids', () => {
    const ids = new Set(Array.from({ length: 10_000 }, (_, i) => derivedIds('a'.repeat(32), 0, i)()));
    expect(ids.size).toBe(10_000);
  });
});

it('"same body" is the SHA-256 of the decoded bytes', () => {
  const body = Buffer.from('{"users":[{"a":1}]}');
  expect(requestDigest(body)).toBe(createHash('sha256').update(body).digest('hex'));
  expect(requestDigest(Buffer.from('{"users":[{"a":1}] }'))).not.toBe(requestDigest(body));
});

it("a claim's lease outlives the staging route's timeout", () => {
  const route = ROUTES.find((r) => r.id === 'bulk-import-users-add');
  expect(route?.timeoutSeconds).toBeDefined();
  expect(IDEMPOTENCY_LEASE_MS).toBeGreaterThan((route?.timeoutSeconds as number) * 1000);
});
