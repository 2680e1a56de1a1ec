import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HASHING_ALGORITHMS } from '../../functions/domain/passwords/algorithm.js';
import { PasswordHashingError } from '../../functions/domain/passwords/errors.js';
import { checkHashFormat, HASH_FORMAT_ERRORS } from '../../functions/domain/passwords/format.js';
import {
  type HashingAlgorithm,
  needsRehash,
  normaliseImportedHash,
  verifyPassword,
} from '../../functions/domain/passwords/index.js';

/**
 * No string given as a hash of any family makes the import check or sign-in's verify throw or
 * run away: the check always answers a stored form or the family's message, the stored form
 * passes the check again unchanged, and verify always answers one of its results.
 */

// Valid hashes of every family (the known-answer vectors' sources are in passwords-vectors.test.ts);
// the fuzzer mutates them so that most inputs get deep into a parser.
const SEEDS: readonly (readonly [HashingAlgorithm, string])[] = [
  ['BCRYPT', '$2a$04$FAoTzla54fQsOZYYdT5rS.ZkSfSls9ENEu8EBQsiO03hYjl7jt9wy'],
  ['ARGON2', '$argon2id$v=19$m=1024,t=2,p=1$KC3qomUDgi0ek4qWDzaWeg$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzw'],
  [
    'FIREBASE_SCRYPT',
    '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==',
  ],
  [
    'PBKDF2',
    '$pbkdf2-sha256$i=1000,l=32$1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc$QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI',
  ],
  ['PBKDF2', 'pbkdf2_sha1$1000$wz5B6WkasRoF$atJmJ1o+XfJxKq1+Nu1f1i57Z5I='],
  ['PBKDF2', 'AQAAAAIAAAAyAAAAEOMwvh3+FZxqkdMBz2ekgGhwQ4B6pZWND6zgESBuWiHw'],
  ['PBKDF2', 'ANXrDknc7fGPpigibZXXZFMX4aoqz44JveK6jQuwY3eH/UyPhvr5xTPeGYEckLxz9A=='],
  ['SCRYPT', '$scrypt$ln=4,r=1,p=1$$d9ZXYjhleyA7GcpCwYoEl/FrSETjB0ro39/6P+3iFEI'],
  ['PHPASS', '$P$984478476IagS59wHZvyQMArzfx58u.'],
  ['PHPASS', '$S$C33783772bRXEx1aCsvY.dqgaaSu76XmVlKrW9Qu8IQlvxHlmzLf'],
  ['PHPASS', '$wp$2y$04$FAoTzla54fQsOZYYdT5rS.ZkSfSls9ENEu8EBQsiO03hYjl7jt9wy'],
  ['MD5', '5f4dcc3b5aa765d61d8327deb882cf99'],
  ['MD5', 'md5$123abcdef$c8272612932975ee80e8a35995708e80'],
  ['SHA1', '$sha1$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$2qU2SGWP8viTM1md3FiI3+rjWXQ='],
  ['SHA1', 'sha1$54123$893cf12e134c3c215f3a76bd50d13f92404a54d3'],
  ['SHA256', 'XohImNooBHFR0OVvjcYpJ3NgPQ1qq73WKhHvch0VQtg='],
  [
    'SHA512',
    '$sha512$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$6ctpVuApMNp0CgBXcdHw/GC562eFEFGr4gpgANX8ZYsX+j5B19IkdmOY2Fytsz3QUwSWdGcUjbqwgJGTH0UYvw==',
  ],
  ['LDAP', '{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr'],
  ['LDAP', '{SSHA512}xPUl/px+1cG55rUH4rzcwxdOIPSB2TingLpiJJumN2xyDWN4Ix1WQG3ihnvHaWUE8MYNkvMi5rf0C9NYixHsE6Yh59M='],
];

/** Characters that matter to the parsers: separators, padding, digits, Base64, braces. */
const SPECIAL = fc.constantFrom(...'$=,{}+/.:-_0123456789aAzZ\0é'.split(''), '{SALT}', '{PASSWORD}', '99999999999');

type Edit = { at: number; kind: 'replace' | 'insert' | 'delete' | 'duplicate'; text: string };
const edit: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat({ max: 200 }),
  kind: fc.constantFrom('replace', 'insert', 'delete', 'duplicate'),
  text: fc.oneof(SPECIAL, fc.string({ maxLength: 8 })),
});

function applyEdits(seed: string, edits: readonly Edit[]): string {
  let text = seed;
  for (const { at, kind, text: piece } of edits) {
    const i = text.length === 0 ? 0 : at % (text.length + 1);
    if (kind === 'replace') text = text.slice(0, i) + piece + text.slice(i + 1);
    if (kind === 'insert') text = text.slice(0, i) + piece + text.slice(i);
    if (kind === 'delete') text = text.slice(0, i) + text.slice(i + piece.length + 1);
    if (kind === 'duplicate') text = text.slice(0, i) + text.slice(i, i + 12) + text.slice(i);
  }
  return text;
}

/** A family's seed with a few edits, paired with the family. */
const mutatedPair = fc
  .tuple(fc.constantFrom(...SEEDS), fc.array(edit, { minLength: 1, maxLength: 4 }))
  .map(([[family, seed], edits]) => [family, applyEdits(seed, edits)] as const);
const mutated = mutatedPair.map(([, hash]) => hash);

/** Each family's prefix followed by anything, and numbers of any size where parameters go. */
const PREFIXES = [
  '$2a$',
  '$2y$14$',
  '$argon2id$v=19$',
  '$argon2i$',
  '$f_scrypt$',
  '$pbkdf2-sha256$i=',
  '$pbkdf2-sha224$',
  'pbkdf2_sha256$',
  '$scrypt$ln=',
  '$P$',
  '$H$',
  '$S$',
  '$wp$2y$',
  '$md5$',
  '$sha1$pf=',
  'sha1$',
  'md5$',
  '{SSHA}',
  '{sha}',
  'AQAAAA',
  'AA',
];
const prefixed = fc.tuple(fc.constantFrom(...PREFIXES), fc.string({ maxLength: 120 })).map(([p, s]) => p + s);
const big = fc.oneof(fc.nat({ max: 40 }), fc.nat(), fc.constant(2 ** 53), fc.constant(4294967295));
const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Hashes of each family with every parameter drawn from small to huge, paired with the family. */
const parameterisedPair: fc.Arbitrary<readonly [HashingAlgorithm, string]> = fc.oneof(
  fc
    .tuple(big, big, big)
    .map(([n, r, p]) => ['SCRYPT', `$scrypt$ln=${n},r=${r},p=${p}$c2FsdHNhbHQ$${'A'.repeat(43)}`] as const),
  fc
    .tuple(big, big, big)
    .map(([m, t, p]) => ['ARGON2', `$argon2id$v=19$m=${m},t=${t},p=${p}$c29tZXNhbHQ$${'A'.repeat(43)}`] as const),
  fc
    .tuple(big, big)
    .map(
      ([m, r]) => ['FIREBASE_SCRYPT', `$f_scrypt$${'A'.repeat(88)}$${'B'.repeat(24)}$m=${m}$r=${r}$s=Bw==`] as const,
    ),
  fc
    .tuple(big, fc.constantFrom('sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha3'), fc.nat({ max: 200 }))
    .map(([i, d, l]) => ['PBKDF2', `$pbkdf2-${d}$i=${i}$c2FsdA$${'A'.repeat(Math.ceil((l * 4) / 3))}`] as const),
  fc
    .tuple(fc.constantFrom('P', 'H', 'S'), fc.nat({ max: 63 }))
    .map(([id, n]) => ['PHPASS', `$${id}$${ITOA64[n]}12345678${'a'.repeat(id === 'S' ? 43 : 22)}`] as const),
  fc.nat({ max: 99 }).map((cost) => ['BCRYPT', `$2b$${String(cost).padStart(2, '0')}$${'a'.repeat(53)}`] as const),
);
const parameterised = parameterisedPair.map(([, hash]) => hash);
const anyHash = fc.oneof(
  { weight: 4, arbitrary: mutated },
  { weight: 2, arbitrary: prefixed },
  { weight: 2, arbitrary: parameterised },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
  { weight: 1, arbitrary: fc.constantFrom(...SEEDS.map(([, seed]) => seed)) },
);
const algorithm = fc.constantFrom(...HASHING_ALGORITHMS);

const RESULTS = ['WRONG_PASSWORD', 'MISSING_FIREBASE_SIGNER_KEY', 'UNSUPPORTED_HASH', 'HASH_COST_ABOVE_LIMIT'];

describe('the import check never throws', () => {
  it('answers a stored form that checks again unchanged, or the family message', () => {
    fc.assert(
      fc.property(algorithm, anyHash, (alg, hash) => {
        const result = normaliseImportedHash(alg, hash);
        if (result.ok) {
          expect(normaliseImportedHash(alg, result.storedHash)).toEqual(result);
          // The import API allows 256 characters: a stored form of such a hash fits them too.
          if (hash.length <= 256) expect(result.storedHash.length).toBeLessThanOrEqual(256);
          expect(checkHashFormat(alg, result.storedHash)).toBeUndefined();
          expect(typeof needsRehash(result.storedHash)).toBe('boolean');
        } else {
          expect(result.error.startsWith(HASH_FORMAT_ERRORS[alg])).toBe(true);
          expect(result.error).not.toContain(hash.length > 12 ? hash : '\u0000never');
        }
        const compat = checkHashFormat(alg, hash);
        expect(compat === undefined || compat.startsWith(HASH_FORMAT_ERRORS[alg])).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('verify never throws', () => {
  it('answers one of its results for any stored string and password', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyHash,
        fc.string({ maxLength: 80 }),
        fc.option(fc.constantFrom('c2lnbmVyLWtleQ==', '', 'not base64!')),
        async (stored, password, signerKey) => {
          try {
            const result = await verifyPassword(password, stored, { firebaseSignerKey: signerKey ?? undefined });
            if (!result.ok) expect(RESULTS).toContain(result.reason);
          } catch (error) {
            // Only an internal failure of a hashing library may surface, and never with the input in it.
            expect(error).toBeInstanceOf(PasswordHashingError);
            throw error;
          }
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);

  it('computes every hash the import check accepts (nothing accepted is refused at sign-in)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutatedPair, parameterisedPair, fc.constantFrom(...SEEDS)), async ([family, hash]) => {
        const imported = normaliseImportedHash(family, hash);
        if (!imported.ok) return;
        const result = await verifyPassword('password', imported.storedHash, { firebaseSignerKey: 'c2lnbmVyLWtleQ==' });
        expect(result.ok || result.reason === 'WRONG_PASSWORD').toBe(true);
      }),
      { numRuns: 300 },
    );
  }, 120_000);
});
