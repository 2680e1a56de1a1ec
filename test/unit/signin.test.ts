import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';

// The KDF entry points count their calls (and still compute), so the wiring's dummy verify can be
// shown to run exactly one computation of the app's configured algorithm and cost.
const { calls } = vi.hoisted(() => ({ calls: [] as { fn: string; args: Record<string, unknown> }[] }));
vi.mock('hash-wasm', async (importOriginal) => {
  const actual = await importOriginal<typeof import('hash-wasm')>();
  const counted =
    <A extends unknown[], R>(fn: string, impl: (...args: A) => R) =>
    (...args: A): R => {
      calls.push({ fn, args: args[0] as Record<string, unknown> });
      return impl(...args);
    };
  return {
    ...actual,
    bcrypt: counted('bcrypt', actual.bcrypt),
    argon2id: counted('argon2id', actual.argon2id),
    argon2i: counted('argon2i', actual.argon2i),
    argon2d: counted('argon2d', actual.argon2d),
  };
});

const { resolveEffectiveConfig } = await import('#functions/config/index.js');
const { hashPassword } = await import('#functions/domain/passwords/index.js');
const { signIn: signInWith } = await import('#functions/domain/users/sign-in.js');
const { storedHashVerifier } = await import('#functions/domain/users/stored-hash.js');
const { passwordPorts } = await import('#functions/wiring/passwords.js');
const { RecentDurations } = await import('#functions/domain/passwords/timing.js');
type PasswordPorts = import('#functions/domain/users/deps.js').PasswordPorts;
type UsersDeps = import('#functions/domain/users/deps.js').UsersDeps;

/** The sign-in of an app without a password-migration hook: the stored hash checks the password. */
const signIn = (
  deps: UsersDeps,
  ports: PasswordPorts,
  target: { appId: string; tenantId: string },
  input: { email: string; password: string },
) => signInWith(deps, ports, target, input, storedHashVerifier(deps, ports));
type UserRecord = import('#functions/domain/users/model.js').UserRecord;

const TARGET = { appId: 'shop', tenantId: 'public' };
const ARGON2_UNUSED = { iterations: 1, memoryKb: 64, parallelism: 1 };
const EMAIL = 'ada@example.com';
const STORED = '$2a$04$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe';
const OVER_LIMIT = '$2a$20$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe';

const userWith = (passwordHash: string): UserRecord => ({
  userId: 'u1',
  isPrimaryUser: false,
  timeJoined: 1,
  loginMethods: [
    {
      recipeId: 'emailpassword',
      recipeUserId: 'u1',
      tenantIds: ['public'],
      timeJoined: 1,
      verified: false,
      email: EMAIL,
      passwordHash,
    },
  ],
  externalIds: {},
  version: 1,
});

/** Users deps over one stored user (or none); records the emails looked up and the warnings. */
function usersDeps(stored: UserRecord | undefined) {
  const lookups: string[] = [];
  const warnings: { message: string; fields: Record<string, unknown> }[] = [];
  const deps = {
    store: {
      getEmailPasswordUser: async (_app: string, _tenant: string, email: string) => {
        lookups.push(email);
        return stored && email === EMAIL ? { user: stored, recipeUserId: 'u1' } : undefined;
      },
    },
    now: () => 1,
    newId: () => 'new',
    warn: (message: string, fields: Record<string, unknown>) => warnings.push({ message, fields }),
  } as unknown as UsersDeps;
  return { deps, lookups, warnings };
}

/**
 * A virtual clock: `now` is what the fake work and the sleeps have added up to. No wall clock is
 * read anywhere in these tests.
 */
function virtualTiming(floor: number | undefined) {
  const clock = { t: 1_000, sleeps: [] as number[] };
  const timing: PasswordPorts['timing'] = {
    now: () => clock.t,
    sleep: async (ms) => {
      clock.sleeps.push(ms);
      clock.t += ms;
    },
    floorMs: () => floor,
  };
  return { clock, timing };
}

/**
 * A password port that counts its calls, answers `verify` with a fixed outcome after `verifyMs`
 * of virtual time, and spends `dummyMs` in the dummy verify.
 */
function countingPorts(
  outcome: Awaited<ReturnType<PasswordPorts['verify']>> = 'mismatch',
  options: { floor?: number | undefined; verifyMs?: number; dummyMs?: number } = {},
) {
  const counts = { hash: 0, verify: 0, dummyVerify: 0 };
  const { clock, timing } = virtualTiming('floor' in options ? options.floor : 100);
  const ports: PasswordPorts = {
    hash: async () => {
      counts.hash++;
      return 'never';
    },
    verify: async () => {
      counts.verify++;
      clock.t += options.verifyMs ?? 100;
      return outcome;
    },
    dummyVerify: async () => {
      counts.dummyVerify++;
      clock.t += options.dummyMs ?? 100;
    },
    timing,
  };
  return { ports, counts, clock };
}

describe('sign-in', () => {
  it('an unknown email runs exactly one (dummy) verify, like a wrong password runs one verify', async () => {
    const unknown = countingPorts();
    const { deps } = usersDeps(userWith(STORED));
    expect(await signIn(deps, unknown.ports, TARGET, { email: 'nobody@example.com', password: 'x' })).toEqual({
      status: 'WRONG_CREDENTIALS_ERROR',
    });
    expect(unknown.counts).toEqual({ hash: 0, verify: 0, dummyVerify: 1 });

    const wrong = countingPorts('mismatch');
    expect(await signIn(deps, wrong.ports, TARGET, { email: EMAIL, password: 'x' })).toEqual({
      status: 'WRONG_CREDENTIALS_ERROR',
    });
    expect(wrong.counts).toEqual({ hash: 0, verify: 1, dummyVerify: 0 });
  });

  it('an email too long to be stored is not looked up, and still costs one verify', async () => {
    const { ports, counts } = countingPorts();
    const { deps, lookups } = usersDeps(userWith(STORED));
    const email = `${'a'.repeat(3000)}@example.com`;
    expect(await signIn(deps, ports, TARGET, { email, password: 'x' })).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(lookups).toEqual([]);
    expect(counts).toEqual({ hash: 0, verify: 0, dummyVerify: 1 });
  });

  it('a stored hash beyond the bounds answers wrong credentials and logs its own warning, without the hash', async () => {
    const { deps, warnings } = usersDeps(userWith(OVER_LIMIT));
    const ports = passwordPorts(resolveEffectiveConfig({}, undefined, undefined));
    calls.length = 0;
    expect(await signIn(deps, ports, TARGET, { email: EMAIL, password: 'correct horse' })).toEqual({
      status: 'WRONG_CREDENTIALS_ERROR',
    });
    // The stored hash is never computed; the one computation is the dummy verify at the app's
    // cost (11), which holds the failure to its duration (no floor measured yet in this test).
    expect(calls).toEqual([{ fn: 'bcrypt', args: expect.objectContaining({ costFactor: 11 }) }]);
    expect(warnings).toEqual([
      {
        message: 'sign-in refused: the stored password hash asks for more work than the hash cost bounds allow',
        fields: { ...TARGET, recipeUserId: 'u1' },
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain('$2a$20$');
  });

  it('a hash the app cannot check (Firebase without the signer key) keeps its own warning', async () => {
    const firebase = `$f_scrypt$${Buffer.alloc(64, 9).toString('base64')}$${Buffer.alloc(16, 7).toString('base64')}$m=14$r=8$s=Bw==`;
    const { deps, warnings } = usersDeps(userWith(firebase));
    const ports = passwordPorts(resolveEffectiveConfig({}, undefined, undefined));
    expect(await signIn(deps, ports, TARGET, { email: EMAIL, password: 'x' })).toEqual({
      status: 'WRONG_CREDENTIALS_ERROR',
    });
    expect(warnings.map((w) => w.message)).toEqual([
      'sign-in refused: the stored password hash cannot be checked with this app configuration',
    ]);
  });
});

describe('a failed sign-in takes at least as long as the dummy verify, whatever the stored hash', () => {
  const FLOOR = 100;
  const wrong = { email: EMAIL, password: 'x' };

  /** The virtual time one sign-in took, its sleeps and its calls. */
  async function timed(
    stored: UserRecord | undefined,
    outcome: Awaited<ReturnType<PasswordPorts['verify']>>,
    options: Parameters<typeof countingPorts>[1],
    input = wrong,
  ) {
    const { ports, counts, clock } = countingPorts(outcome, options);
    const { deps } = usersDeps(stored);
    const started = clock.t;
    const result = await signIn(deps, ports, TARGET, input);
    return { result, took: clock.t - started, sleeps: clock.sleeps, counts };
  }

  it.each([
    ['a digest (microseconds)', 'mismatch', 0.004],
    ['bcrypt far below the app cost', 'mismatch', 100 / 128],
    ['a hash beyond the bounds, never computed', 'over-limit', 0],
    ['a hash the app cannot check (Firebase without its signer key)', 'unverifiable', 0],
    ['a password refused before any work (phpass over 4096 bytes)', 'mismatch', 0],
  ] as const)(
    'runs the dummy verify after %s (next to no work), then pads to the floor',
    async (_, outcome, verifyMs) => {
      // A dummy verify faster than the floor this time (the floor is the median of several).
      const run = await timed(userWith(STORED), outcome, { floor: FLOOR, verifyMs, dummyMs: 90 });
      expect(run.result).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
      expect(run.counts).toEqual({ hash: 0, verify: 1, dummyVerify: 1 });
      expect(run.took).toBeCloseTo(FLOOR, 9);
      const slow = await timed(userWith(STORED), outcome, { floor: FLOOR, verifyMs, dummyMs: 120 });
      expect(slow.sleeps).toEqual([]);
      expect(slow.took).toBeCloseTo(verifyMs + 120, 9);
    },
  );

  it.each([
    ['bcrypt one cost below the app', 50],
    ['phpass (WordPress, 2^13 MD5 rounds)', 28],
    ['just above next to no work', 10],
  ] as const)('sleeps the rest of the floor after %s', async (_, verifyMs) => {
    const run = await timed(userWith(STORED), 'mismatch', { floor: FLOOR, verifyMs });
    expect(run.result).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(run.took).toBeCloseTo(FLOOR, 9);
    expect(run.sleeps).toHaveLength(1);
    expect(run.sleeps[0]).toBeCloseTo(FLOOR - verifyMs, 9);
    expect(run.counts).toEqual({ hash: 0, verify: 1, dummyVerify: 0 });
  });

  it('adds nothing to a verify that took the floor or longer (the app algorithm, a costlier hash)', async () => {
    for (const verifyMs of [FLOOR, FLOOR + 0.5, 3 * FLOOR]) {
      const run = await timed(userWith(STORED), 'mismatch', { floor: FLOOR, verifyMs });
      expect(run.sleeps).toEqual([]);
      expect(run.took).toBe(verifyMs);
    }
  });

  it('holds an unknown email, and a login method without a hash, to the floor too', async () => {
    for (const stored of [undefined, userWith('')]) {
      const fast = await timed(stored, 'mismatch', { floor: FLOOR, dummyMs: 70 });
      expect(fast.counts).toEqual({ hash: 0, verify: 0, dummyVerify: 1 });
      expect(fast.sleeps).toEqual([30]);
      expect(fast.took).toBe(FLOOR);
      const usual = await timed(stored, 'mismatch', { floor: FLOOR, dummyMs: FLOOR });
      expect(usual.sleeps).toEqual([]);
      expect(usual.took).toBe(FLOOR);
    }
  });

  it('runs the dummy verify itself while the floor is not measured yet (a fresh execution environment)', async () => {
    const cheap = await timed(userWith(STORED), 'mismatch', { floor: undefined, verifyMs: 60, dummyMs: FLOOR });
    expect(cheap.counts).toEqual({ hash: 0, verify: 1, dummyVerify: 1 });
    expect(cheap.took).toBe(60 + FLOOR);
    const none = await timed(userWith(STORED), 'over-limit', { floor: undefined, verifyMs: 0, dummyMs: FLOOR });
    expect(none.counts).toEqual({ hash: 0, verify: 1, dummyVerify: 1 });
    expect(none.sleeps).toEqual([]);
    expect(none.took).toBe(FLOOR);
    // The unknown email has run it already: once only.
    const unknown = await timed(undefined, 'mismatch', { floor: undefined, dummyMs: FLOOR });
    expect(unknown.counts).toEqual({ hash: 0, verify: 0, dummyVerify: 1 });
    expect(unknown.took).toBe(FLOOR);
  });

  it('never delays a successful sign-in', async () => {
    const run = await timed(userWith(STORED), 'match', { floor: FLOOR, verifyMs: 1 });
    expect(run.result).toMatchObject({ status: 'OK' });
    expect(run.sleeps).toEqual([]);
    expect(run.took).toBe(1);
  });

  it('holds every failure to the floor for any verify time and outcome (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('mismatch' as const, 'over-limit' as const, 'unverifiable' as const),
        fc.double({ min: 0, max: 1_000, noNaN: true }),
        fc.double({ min: 0.001, max: 1_000, noNaN: true }),
        fc.boolean(),
        fc.double({ min: 0, max: 1_000, noNaN: true }),
        async (outcome, verifyMs, floor, known, dummyMs) => {
          const run = await timed(known ? userWith(STORED) : undefined, outcome, { floor, verifyMs, dummyMs });
          expect(run.result).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
          expect(run.took).toBeGreaterThanOrEqual(floor - 1e-9);
          // Never more than the floor, the stored hash's own time, or next-to-no work plus the dummy.
          const work = known ? verifyMs + (verifyMs < floor * 0.1 ? dummyMs : 0) : dummyMs;
          expect(run.took).toBeCloseTo(Math.max(floor, work), 6);
        },
      ),
    );
  });
});

describe('RecentDurations', () => {
  it('is the median of the last samples, unmoved by one outlier, and ignores what is not a duration', () => {
    const durations = new RecentDurations(5);
    expect(durations.median()).toBeUndefined();
    for (const ms of [100, 102, 98, Number.NaN, -1, Number.POSITIVE_INFINITY]) durations.add(ms);
    expect(durations.median()).toBe(100);
    durations.add(5_000);
    expect(durations.median()).toBe(101);
    // The oldest samples leave first: five slower ones replace them all.
    for (const ms of [200, 210, 190, 205, 195]) durations.add(ms);
    expect(durations.median()).toBe(200);
  });
});

describe("the wiring's floor", () => {
  it('is measured by the dummy verify and by verifies that cost the same, not by cheaper ones', async () => {
    // A setting no other test uses: its floor starts unmeasured.
    const ports = passwordPorts(resolveEffectiveConfig({ bcrypt_log_rounds: 6 }, undefined, undefined));
    const md5 = '$md5$pf=e1BBU1NXT1JEfQ==$$X03MO1qnZdYdgyfeuILPmQ==';
    expect(await ports.verify('wrong', md5)).toBe('mismatch');
    expect(ports.timing.floorMs()).toBeUndefined();
    const cost5 = await hashPassword('pw', { algorithm: 'BCRYPT', bcryptLogRounds: 5, argon2: ARGON2_UNUSED });
    expect(await ports.verify('wrong', cost5)).toBe('mismatch');
    expect(ports.timing.floorMs()).toBeUndefined();
    const cost6 = await hashPassword('pw', { algorithm: 'BCRYPT', bcryptLogRounds: 6, argon2: ARGON2_UNUSED });
    expect(await ports.verify('wrong', cost6)).toBe('mismatch');
    expect(ports.timing.floorMs()).toBeGreaterThan(0);
    // Shared by every sign-in of the same setting in this execution environment.
    const other = passwordPorts(resolveEffectiveConfig({ bcrypt_log_rounds: 6 }, { mfa_enabled: true }, undefined));
    expect(other.timing.floorMs()).toBe(ports.timing.floorMs());
    const argon = passwordPorts(
      resolveEffectiveConfig({ password_hashing_alg: 'ARGON2', argon2_memory_kb: 96 }, undefined, undefined),
    );
    expect(argon.timing.floorMs()).toBeUndefined();
    await argon.dummyVerify('');
    expect(argon.timing.floorMs()).toBeGreaterThan(0);
  });
});

describe('empty and over-long passwords get the same work', () => {
  beforeEach(() => {
    calls.length = 0;
  });

  it('an empty password against an Argon2 hash runs the Argon2 computation, and never matches', async () => {
    const params = { iterations: 2, memoryKb: 256, parallelism: 1 };
    const stored = await hashPassword(' ', { algorithm: 'ARGON2', bcryptLogRounds: 10, argon2: params });
    const ports = passwordPorts(resolveEffectiveConfig({}, undefined, undefined));
    calls.length = 0;
    expect(await ports.verify('', stored)).toBe('mismatch');
    expect(calls).toEqual([
      { fn: 'argon2id', args: expect.objectContaining({ iterations: 2, memorySize: 256, parallelism: 1 }) },
    ]);
  });

  it('the dummy verify of an empty or an over-long password computes one hash at the configured cost', async () => {
    const ports = passwordPorts(resolveEffectiveConfig({ bcrypt_log_rounds: 5 }, undefined, undefined));
    for (const password of ['', 'x'.repeat(100_000)]) {
      calls.length = 0;
      await ports.dummyVerify(password);
      expect(calls).toEqual([{ fn: 'bcrypt', args: expect.objectContaining({ costFactor: 5 }) }]);
    }
  });
});

describe("the wiring's dummy verify", () => {
  beforeEach(() => {
    calls.length = 0;
  });

  it('computes one bcrypt at the configured cost (bcrypt apps)', async () => {
    const ports = passwordPorts(resolveEffectiveConfig({ bcrypt_log_rounds: 5 }, undefined, undefined));
    await ports.dummyVerify('whatever');
    expect(calls).toEqual([{ fn: 'bcrypt', args: expect.objectContaining({ costFactor: 5 }) }]);
  });

  it('computes one argon2id with the configured settings (Argon2 apps), as a verify of such a hash does', async () => {
    const base = { password_hashing_alg: 'ARGON2', argon2_iterations: 2, argon2_memory_kb: 512, argon2_parallelism: 2 };
    const ports = passwordPorts(resolveEffectiveConfig(base, undefined, undefined));
    const stored = await hashPassword('real password', {
      algorithm: 'ARGON2',
      bcryptLogRounds: 10,
      argon2: { iterations: 2, memoryKb: 512, parallelism: 2 },
    });
    calls.length = 0;
    expect(await ports.verify('wrong password', stored)).toBe('mismatch');
    const [verify] = calls.splice(0);
    await ports.dummyVerify('');
    expect(calls).toHaveLength(1);
    const [dummy] = calls;
    expect(dummy?.fn).toBe('argon2id');
    for (const key of ['iterations', 'memorySize', 'parallelism', 'hashLength']) {
      expect(dummy?.args[key]).toBe(verify?.args[key]);
    }
  });
});
