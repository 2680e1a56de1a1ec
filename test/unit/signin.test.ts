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
const { signIn } = await import('#functions/domain/users/service.js');
const { passwordPorts } = await import('#functions/wiring/passwords.js');
type PasswordPorts = import('#functions/domain/users/service.js').PasswordPorts;
type UsersDeps = import('#functions/domain/users/service.js').UsersDeps;
type UserRecord = import('#functions/domain/users/model.js').UserRecord;

const TARGET = { appId: 'shop', tenantId: 'public' };
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

/** A password port that counts its calls and answers `verify` with a fixed outcome. */
function countingPorts(outcome: Awaited<ReturnType<PasswordPorts['verify']>> = 'mismatch') {
  const counts = { hash: 0, verify: 0, dummyVerify: 0 };
  const ports: PasswordPorts = {
    hash: async () => {
      counts.hash++;
      return 'never';
    },
    verify: async () => {
      counts.verify++;
      return outcome;
    },
    dummyVerify: async () => {
      counts.dummyVerify++;
    },
  };
  return { ports, counts };
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
    expect(calls).toEqual([]);
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
