import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { HashingAlgorithm } from '../../functions/domain/passwords/index.js';

// Every KDF entry point counts its calls (and still computes), so a test can show that a hash
// beyond the bounds is refused without the KDF ever running.
const { calls, counted } = vi.hoisted(() => {
  const calls = { count: 0, args: [] as unknown[] };
  const counted =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R => {
      calls.count++;
      calls.args.push(args[0]);
      return fn(...args);
    };
  return { calls, counted };
});
vi.mock('hash-wasm', async (importOriginal) => {
  const actual = await importOriginal<typeof import('hash-wasm')>();
  return {
    ...actual,
    bcrypt: counted(actual.bcrypt),
    argon2id: counted(actual.argon2id),
    argon2i: counted(actual.argon2i),
    argon2d: counted(actual.argon2d),
  };
});
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return {
    ...actual,
    pbkdf2: counted(actual.pbkdf2),
    scrypt: counted(actual.scrypt),
    hash: counted(actual.hash),
    createHmac: counted(actual.createHmac),
  };
});

const { dummyVerifyPassword, HASH_LIMITS, hashPassword, needsRehash, normaliseImportedHash, verifyPassword } =
  await import('../../functions/domain/passwords/index.js');
const { checkUndeclaredHash, HASH_FORMAT_ERRORS: E } = await import('../../functions/domain/passwords/format.js');

const NO_KEY = { firebaseSignerKey: undefined };
const KEY = { firebaseSignerKey: 'c2lnbmVyLWtleQ==' };
const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const B64_16 = Buffer.alloc(16, 7).toString('base64').replace(/=+$/, '');
const B64_32 = Buffer.alloc(32, 9).toString('base64').replace(/=+$/, '');

const bcrypt = (cost: string) => `$2a$${cost}$${'a'.repeat(53)}`;
const argon2 = (params: string) => `$argon2id$v=19$${params}$${B64_16}$${B64_32}`;
const scrypt = (params: string) => `$scrypt$${params}$${B64_16}$${B64_32}`;
const firebase = (m: number, r: number) =>
  `$f_scrypt$${Buffer.alloc(64, 9).toString('base64')}$${Buffer.alloc(16, 7).toString('base64')}$m=${m}$r=${r}$s=Bw==`;
const pbkdf2 = (digest: string, iterations: number, keyBytes = 32) =>
  `$pbkdf2-${digest}$i=${iterations},l=${keyBytes}$${B64_16}$${Buffer.alloc(keyBytes, 1).toString('base64').replace(/=+$/, '')}`;
const phpass = (id: 'P' | 'S', log2: number) => `$${id}$${ITOA64[log2]}abcdefgh${'a'.repeat(id === 'S' ? 43 : 22)}`;
const wordpress = (cost: string) => `$wp$2y$${cost}$${'a'.repeat(53)}`;

beforeEach(() => {
  calls.count = 0;
  calls.args.length = 0;
});

/**
 * Each bound: a hash exactly at it is accepted at import; one step beyond is refused with a message
 * naming the parameter and the limit, and, stored anyway (written before the bounds existed), is
 * never computed at sign-in.
 */
interface Bound {
  readonly family: HashingAlgorithm;
  readonly atLimit: readonly string[];
  readonly beyond: readonly (readonly [string, string])[];
}

const BOUNDS: readonly Bound[] = [
  {
    family: 'BCRYPT',
    atLimit: [bcrypt('14'), bcrypt('04')],
    beyond: [[bcrypt('15'), `${E.BCRYPT}: cost 15 is above the limit of 14`]],
  },
  {
    family: 'ARGON2',
    atLimit: [
      argon2('m=262144,t=1,p=1'),
      argon2('m=26214,t=10,p=1'),
      argon2('m=65536,t=4,p=4'),
      argon2('m=128,t=1,p=16'),
    ],
    beyond: [
      [argon2('m=262145,t=1,p=1'), `${E.ARGON2}: m × t 262145 is above the limit of 262144 (KiB × passes)`],
      [argon2('m=1048576,t=1,p=1'), `${E.ARGON2}: m × t 1048576 is above the limit of 262144 (KiB × passes)`],
      [argon2('m=65536,t=5,p=1'), `${E.ARGON2}: m × t 327680 is above the limit of 262144 (KiB × passes)`],
      [argon2('m=8,t=11,p=1'), `${E.ARGON2}: t 11 is above the limit of 10`],
      [argon2('m=136,t=1,p=17'), `${E.ARGON2}: p 17 is above the limit of 16`],
    ],
  },
  {
    family: 'SCRYPT',
    atLimit: [scrypt('ln=17,r=8,p=1'), scrypt('ln=17,r=8,p=2'), scrypt('ln=10,r=8,p=16'), scrypt('ln=14,r=8,p=16')],
    beyond: [
      [scrypt('ln=18,r=8,p=1'), `${E.SCRYPT}: ln 18 is above the limit of 17`],
      [scrypt('ln=10,r=9,p=1'), `${E.SCRYPT}: r 9 is above the limit of 8`],
      [scrypt('ln=10,r=8,p=17'), `${E.SCRYPT}: p 17 is above the limit of 16`],
      [scrypt('ln=17,r=8,p=3'), `${E.SCRYPT}: N × r × p 3145728 is above the limit of 2097152`],
      [scrypt('ln=262144,r=8,p=1'), `${E.SCRYPT}: ln 18 is above the limit of 17`],
    ],
  },
  {
    family: 'FIREBASE_SCRYPT',
    atLimit: [firebase(17, 8), firebase(14, 8), firebase(15, 1)],
    beyond: [
      [firebase(18, 8), `${E.FIREBASE_SCRYPT}: mem_cost 18 is above the limit of 17`],
      [firebase(14, 9), `${E.FIREBASE_SCRYPT}: rounds 9 is above the limit of 8`],
    ],
  },
  {
    family: 'PBKDF2',
    atLimit: [
      pbkdf2('sha1', 1_500_000, 20),
      pbkdf2('sha256', 1_500_000),
      pbkdf2('sha512', 1_500_000, 64),
      pbkdf2('sha256', 750_000, 64),
      pbkdf2('sha224', 1_000_000, 28),
      pbkdf2('sha384', 1_000_000, 48),
    ],
    beyond: [
      [pbkdf2('sha256', 1_500_001), `${E.PBKDF2}: iterations 1500001 is above the limit of 1500000`],
      [pbkdf2('sha1', 10_000_000, 20), `${E.PBKDF2}: iterations 10000000 is above the limit of 1500000`],
      [
        pbkdf2('sha256', 750_001, 64),
        `${E.PBKDF2}: iterations × 2 output blocks 1500002 is above the limit of 1500000`,
      ],
      [pbkdf2('sha384', 1_000_001, 48), `${E.PBKDF2}: iterations 1000001 is above the limit of 1000000`],
    ],
  },
  {
    family: 'PHPASS',
    atLimit: [phpass('P', 17), phpass('P', 7), phpass('S', 18), wordpress('14')],
    beyond: [
      [phpass('P', 18), `${E.PHPASS}: log2 iterations 18 is above the limit of 17`],
      [phpass('S', 19), `${E.PHPASS}: log2 iterations 19 is above the limit of 18`],
      [phpass('P', 30), `${E.PHPASS}: log2 iterations 30 is above the limit of 17`],
      [wordpress('15'), `${E.PHPASS}: cost 15 is above the limit of 14`],
    ],
  },
];

describe.each(BOUNDS)('$family bounds', ({ family, atLimit, beyond }) => {
  it.each(atLimit)('accepts %s at import', (hash) => {
    const imported = normaliseImportedHash(family, hash);
    expect(imported).toMatchObject({ ok: true });
    expect(calls.count).toBe(0);
  });

  it.each(beyond)('refuses %s at import, naming the parameter and the limit', (hash, message) => {
    expect(normaliseImportedHash(family, hash)).toEqual({ ok: false, error: message, kind: 'limit' });
    expect(calls.count).toBe(0);
  });

  it.each(atLimit)('accepts %s given without hashingAlgorithm', (hash) => {
    expect(checkUndeclaredHash(hash)).toBeUndefined();
  });

  it.each(beyond)('refuses %s given without hashingAlgorithm, with the same message', (hash, message) => {
    // Stored as given (the reference's quirk), so checked in the form sign-in would read.
    expect(checkUndeclaredHash(hash.replace(/^\$H\$/, '$P$'))).toBe(message);
    expect(calls.count).toBe(0);
  });

  it.each(beyond)('never computes %s when it is already stored', async (hash) => {
    const stored = hash.replace(/^\$H\$/, '$P$');
    for (const password of ['', 'password', 'x'.repeat(5000)]) {
      expect(await verifyPassword(password, stored, KEY)).toEqual({ ok: false, reason: 'HASH_COST_ABOVE_LIMIT' });
    }
    expect(calls.count).toBe(0);
  });
});

describe('a hash given without hashingAlgorithm', () => {
  it('is refused exactly when the same hash declared with its algorithm is refused for its parameters', () => {
    const hashes = fc.oneof(
      fc
        .integer({ min: 0, max: 99 })
        .map((cost) => ({ family: 'BCRYPT' as const, hash: bcrypt(String(cost).padStart(2, '0')) })),
      fc
        .record({
          m: fc.integer({ min: 1, max: 2_000_000 }),
          t: fc.integer({ min: 1, max: 30 }),
          p: fc.integer({ min: 1, max: 40 }),
        })
        .map(({ m, t, p }) => ({ family: 'ARGON2' as const, hash: argon2(`m=${m},t=${t},p=${p}`) })),
      fc
        .record({
          ln: fc.integer({ min: 1, max: 30 }),
          r: fc.integer({ min: 1, max: 20 }),
          p: fc.integer({ min: 1, max: 40 }),
        })
        .map(({ ln, r, p }) => ({ family: 'SCRYPT' as const, hash: scrypt(`ln=${ln},r=${r},p=${p}`) })),
      fc.integer({ min: 0, max: 63 }).map((log2) => ({ family: 'PHPASS' as const, hash: phpass('P', log2) })),
    );
    fc.assert(
      fc.property(hashes, ({ family, hash }) => {
        const declared = normaliseImportedHash(family, hash);
        expect(checkUndeclaredHash(hash)).toBe(declared.ok || declared.kind === 'format' ? undefined : declared.error);
      }),
    );
    expect(calls.count).toBe(0);
  });

  it('passes any string that is no complete stored hash (sign-in never computes those)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const problem = checkUndeclaredHash(text);
        if (problem !== undefined) expect(problem).toMatch(/^Password hash is in invalid .+ format: /);
      }),
    );
    for (const text of ['', 'not a hash', '$2a$31$', '$argon2id$v=19$m=99999999', 'pbkdf2_sha256$99999999$salt$hash']) {
      expect(checkUndeclaredHash(text)).toBeUndefined();
    }
    expect(calls.count).toBe(0);
  });
});

describe('parameters the KDFs cannot run are refused at import, never at sign-in', () => {
  it.each([
    ['ARGON2', argon2('m=8,t=1,p=2'), `${E.ARGON2}: m 8 is below 8 × p (16)`],
    ['ARGON2', argon2('m=64,t=0,p=1'), `${E.ARGON2}: t 0 is below the minimum of 1`],
    ['ARGON2', argon2('m=64,t=1,p=1').replace('v=19', 'v=16'), `${E.ARGON2}: version 16 is not supported (only v=19)`],
    [
      'ARGON2',
      argon2('m=64,t=1,p=1').replace('$v=19', ''),
      `${E.ARGON2}: version 16 (no v=) is not supported (only v=19)`,
    ],
    [
      'ARGON2',
      argon2('m=64,t=1,p=1').replace(B64_16, 'c2FsdA'),
      `${E.ARGON2}: a salt of 4 bytes is below Argon2's minimum of 8`,
    ],
    ['SCRYPT', scrypt('ln=16,r=1,p=1'), `${E.SCRYPT}: ln 16 needs r above 1`],
    ['SCRYPT', scrypt('ln=16385,r=8,p=1'), `${E.SCRYPT}: ln 16385 is not a power of two`],
    ['SCRYPT', scrypt('ln=0,r=8,p=1'), `${E.SCRYPT}: ln 0 is below the minimum of 1`],
    ['SCRYPT', scrypt('ln=4,r=0,p=1'), `${E.SCRYPT}: r 0 is below the minimum of 1`],
    ['FIREBASE_SCRYPT', firebase(16, 1), `${E.FIREBASE_SCRYPT}: mem_cost 16 needs rounds above 1`],
    ['FIREBASE_SCRYPT', firebase(0, 8), `${E.FIREBASE_SCRYPT}: mem_cost 0 is below the minimum of 1`],
    ['FIREBASE_SCRYPT', firebase(14, -8), `${E.FIREBASE_SCRYPT}: rounds -8 is below the minimum of 1`],
    ['PBKDF2', pbkdf2('sha256', 0), `${E.PBKDF2}: iterations 0 is below the minimum of 1`],
    ['PHPASS', phpass('P', 6), `${E.PHPASS}: log2 iterations 6 is below the minimum of 7`],
    ['BCRYPT', bcrypt('03'), `${E.BCRYPT}: cost 3 is below the minimum of 4`],
  ] as const)('%s %s', async (family, hash, message) => {
    expect(normaliseImportedHash(family, hash)).toEqual({ ok: false, error: message, kind: 'unsupported' });
    if (family !== 'SCRYPT' || !hash.includes('16385')) {
      expect(await verifyPassword('password', hash, KEY)).toEqual({ ok: false, reason: 'UNSUPPORTED_HASH' });
    }
    expect(calls.count).toBe(0);
  });
});

describe('the bounds hold for what the core writes itself', () => {
  it('hashPassword refuses settings whose hashes it would not verify', async () => {
    const argon2Params = { iterations: 1, memoryKb: 64, parallelism: 1 };
    await expect(
      hashPassword('pw', {
        algorithm: 'BCRYPT',
        bcryptLogRounds: HASH_LIMITS.bcrypt.maxCost + 1,
        argon2: argon2Params,
      }),
    ).rejects.toThrow('bcrypt log rounds must be an integer between 4 and 14');
    await expect(
      hashPassword('pw', {
        algorithm: 'ARGON2',
        bcryptLogRounds: 10,
        argon2: { iterations: 2, memoryKb: 512 * 1024, parallelism: 1 },
      }),
    ).rejects.toThrow('argon2 parameters refused: m × t 1048576 is above the limit of 262144 (KiB × passes)');
    expect(calls.count).toBe(0);
  });
});

describe('needsRehash', () => {
  it.each([
    pbkdf2('sha256', 1000),
    scrypt('ln=10,r=8,p=1'),
    phpass('P', 8),
    phpass('S', 15),
    wordpress('10'),
    `$md5$pf=${Buffer.from('{PASSWORD}').toString('base64')}$$${Buffer.alloc(16).toString('base64')}`,
    `$sha1$pf=${Buffer.from('{PASSWORD}').toString('base64')}$$${Buffer.alloc(20).toString('base64')}`,
    `$sha256$pf=${Buffer.from('{PASSWORD}').toString('base64')}$$${Buffer.alloc(32).toString('base64')}`,
    `$sha512$pf=${Buffer.from('{PASSWORD}').toString('base64')}$$${Buffer.alloc(64).toString('base64')}`,
  ])('is true for the legacy stored form %s', (stored) => {
    expect(needsRehash(stored)).toBe(true);
  });

  it.each([
    bcrypt('10'),
    '$2y$10$abc',
    argon2('m=64,t=1,p=1'),
    firebase(14, 8),
    '',
    'plain text',
    '{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr',
    'pbkdf2_sha256$10000$kjVJaVz6qsnJ$5yPHw3rwJGECpUf70daLGhOrQ5+AMxIJdz1c3bqK1Rs=',
  ])('is false for %j (kept as stored, or not a stored form)', (stored) => {
    expect(needsRehash(stored)).toBe(false);
  });
});

describe('dummyVerifyPassword', () => {
  it('runs the app algorithm at its configured cost and answers a wrong password', async () => {
    const params = {
      algorithm: 'BCRYPT',
      bcryptLogRounds: 5,
      argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
    } as const;
    expect(await dummyVerifyPassword('whatever', params)).toEqual({ ok: false, reason: 'WRONG_PASSWORD' });
    expect(calls.args).toEqual([expect.objectContaining({ costFactor: 5 })]);
  });

  it('spends what a verify of a hash with the same Argon2 settings spends', async () => {
    const params = {
      algorithm: 'ARGON2',
      bcryptLogRounds: 10,
      argon2: { iterations: 2, memoryKb: 256, parallelism: 2 },
    } as const;
    const stored = await hashPassword('real password', params);
    calls.args.length = 0;
    await verifyPassword('wrong password', stored, NO_KEY);
    const [verify] = calls.args as [Record<string, unknown>];
    calls.args.length = 0;
    expect(await dummyVerifyPassword('', params)).toEqual({ ok: false, reason: 'WRONG_PASSWORD' });
    const [dummy] = calls.args as [Record<string, unknown>];
    for (const key of ['iterations', 'memorySize', 'parallelism', 'hashLength']) expect(dummy[key]).toBe(verify[key]);
  });
});

describe('the call counting above', () => {
  it.each([
    pbkdf2('sha256', 1),
    scrypt('ln=1,r=1,p=1'),
    phpass('P', 7),
    phpass('S', 7),
    wordpress('04'),
    bcrypt('04'),
    argon2('m=8,t=1,p=1'),
    `$md5$pf=${Buffer.from('{PASSWORD}').toString('base64')}$$${Buffer.alloc(16).toString('base64')}`,
  ])('sees the KDF of %s run when it is within the bounds', async (stored) => {
    expect(await verifyPassword('password', stored, NO_KEY)).toEqual({ ok: false, reason: 'WRONG_PASSWORD' });
    expect(calls.count).toBeGreaterThan(0);
  });
});
