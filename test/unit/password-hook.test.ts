import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { coreConfigProblem } from '#functions/config/validate.js';
import { BREAKER_SETTINGS, CircuitBreaker } from '#functions/domain/password-hook/breaker.js';
import {
  checkPasswordWithHook,
  type HookTransport,
  type TransportOutcome,
} from '#functions/domain/password-hook/check.js';
import {
  hookRequestBody,
  MAX_ANSWER_BYTES,
  parseSignatureHeader,
  readHookAnswer,
  signatureHeader,
  verifySignature,
} from '#functions/domain/password-hook/protocol.js';
import { counterDeltas, deriveItems } from '#functions/storage/users/items.js';
import { checkSignature } from '../../bin/examples/legacy-password-endpoint.mjs';

const SECRET = 'a-hook-secret-of-at-least-32-characters';
const problem = (merged: Record<string, unknown>) => coreConfigProblem({ merged, level: 'app' });

describe('hook configuration', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('accepts https to a public host, http only to loopback in the local runtime, with a secret of 32 characters or more', () => {
    const withSecret = (url: string) =>
      problem({ password_migration_hook_url: url, password_migration_hook_secret: SECRET });
    expect(withSecret('https://legacy.example.com/check')).toBeUndefined();
    for (const url of ['http://127.0.0.1:8788/', 'http://[::1]/x', 'http://localhost/']) {
      vi.stubEnv('LOCAL_RUNTIME', 'true');
      expect(withSecret(url), url).toBeUndefined();
      vi.stubEnv('LOCAL_RUNTIME', '');
      expect(withSecret(url), url).toBe(
        "'password_migration_hook_url' must be an https:// URL without a user name or password (http:// only to a loopback host — 127.0.0.1, [::1], localhost — and only in the local runtime)",
      );
    }
    expect(withSecret('https://169.254.169.254/latest')).toBe(
      "'password_migration_hook_url' must name a public host: 169.254.169.254 is a link-local (cloud metadata) address, which the core never calls",
    );
    expect(withSecret('https://[::ffff:a9fe:a9fe]/')).toBe(
      "'password_migration_hook_url' must name a public host: [::ffff:a9fe:a9fe] is an IPv4-mapped IPv6 address, which the core never calls",
    );
    expect(problem({ password_migration_hook_url: 'http://legacy.example.com/' })).toContain(
      'password_migration_hook_url',
    );
    expect(problem({ password_migration_hook_url: 'https://u:p@legacy.example.com/' })).toContain(
      'password_migration_hook_url',
    );
    expect(problem({ password_migration_hook_secret: 'x'.repeat(31) })).toBe(
      "'password_migration_hook_secret' must be at least 32 characters long",
    );
    expect(problem({ password_migration_hook_url: 'https://legacy.example.com/' })).toBe(
      "'password_migration_hook_secret' must be set when 'password_migration_hook_url' is set",
    );
    expect(problem({ password_migration_hook_timeout_ms: 99 })).toBe(
      "'password_migration_hook_timeout_ms' must be between 100 and 5000 inclusive.",
    );
  });

  it('any timeout is accepted exactly when it is within 100 … 5000', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10_000, max: 100_000 }), (ms) => {
        const found = problem({ password_migration_hook_timeout_ms: ms });
        expect(found === undefined).toBe(ms >= 100 && ms <= 5000);
      }),
    );
  });

  it('any secret is accepted exactly when it has 32 characters or more', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (secret) => {
        const found = problem({ password_migration_hook_secret: secret });
        expect(found === undefined).toBe(secret.length >= 32);
      }),
    );
  });
});

describe('hook protocol', () => {
  it('signs the documented worked example', () => {
    const body = hookRequestBody({
      appId: 'shop',
      tenantId: 'public',
      userId: 'f1c5bd7a-0c43-4b44-a7c2-4a1f2b0c9e11',
      externalUserId: 'legacy-42',
      email: 'ada@example.com',
      password: 'correct horse battery staple',
      timestamp: 1767225600,
    });
    expect(body).toBe(
      '{"appId":"shop","tenantId":"public","userId":"f1c5bd7a-0c43-4b44-a7c2-4a1f2b0c9e11","externalUserId":"legacy-42","email":"ada@example.com","password":"correct horse battery staple","timestamp":1767225600}',
    );
    expect(signatureHeader('0123456789abcdef0123456789abcdef', 1767225600, body)).toBe(
      't=1767225600,v1=428dc4a43babfb6a1f96488c298e1a053fc2bbc08979341608f4d22967e5507c',
    );
  });

  it('a signature verifies for its body and secret only, at the core and at the reference endpoint', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.integer({ min: 0, max: 2 ** 40 }), (body, other, t) => {
        const header = signatureHeader(SECRET, t, body);
        expect(parseSignatureHeader(header)?.timestamp).toBe(t);
        expect(verifySignature(SECRET, header, body, t)).toBe('ok');
        expect(checkSignature(SECRET, header, Buffer.from(body, 'utf8'), t)).toBe('ok');
        expect(verifySignature(SECRET, header, body + other, t)).toBe('mismatch');
        expect(checkSignature(`${SECRET}x`, header, body, t)).toBe('mismatch');
        expect(verifySignature(SECRET, header, body, t + 301)).toBe('stale');
        expect(checkSignature(SECRET, header, body, t - 301)).toBe('stale');
      }),
    );
  });

  it('any malformed signature header is refused, never thrown', () => {
    fc.assert(
      fc.property(fc.string(), (header) => {
        const verdict = verifySignature(SECRET, header, '{}', 0);
        expect(['malformed', 'stale', 'mismatch']).toContain(verdict);
        expect(['malformed', 'stale', 'mismatch']).toContain(checkSignature(SECRET, header, '{}', 0));
      }),
    );
  });

  it('only 200 with PASSWORD_MATCH or PASSWORD_MISMATCH counts; anything else is "unavailable"', () => {
    expect(readHookAnswer(200, '{"status":"PASSWORD_MATCH","extra":1}')).toEqual({ kind: 'match' });
    expect(readHookAnswer(200, '{"status":"PASSWORD_MISMATCH"}')).toEqual({ kind: 'mismatch' });
    expect(readHookAnswer(302, '')).toEqual({ kind: 'unavailable', cause: 'redirect' });
    expect(readHookAnswer(200, undefined)).toEqual({ kind: 'unavailable', cause: 'too-large' });
    expect(readHookAnswer(200, `{"status":"PASSWORD_MATCH","p":"${'x'.repeat(MAX_ANSWER_BYTES)}"}`)).toEqual({
      kind: 'unavailable',
      cause: 'too-large',
    });
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), fc.string(), (status, body) => {
        const verdict = readHookAnswer(status, body);
        if (status !== 200) expect(verdict.kind).toBe('unavailable');
        if (verdict.kind !== 'unavailable') {
          expect(JSON.parse(body).status).toBe(verdict.kind === 'match' ? 'PASSWORD_MATCH' : 'PASSWORD_MISMATCH');
        }
      }),
    );
    fc.assert(
      fc.property(fc.json(), (body) => {
        const verdict = readHookAnswer(200, body);
        const parsed = JSON.parse(body);
        const status =
          parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed.status : undefined;
        const expected =
          Buffer.byteLength(body) > MAX_ANSWER_BYTES
            ? 'unavailable'
            : status === 'PASSWORD_MATCH'
              ? 'match'
              : status === 'PASSWORD_MISMATCH'
                ? 'mismatch'
                : 'unavailable';
        expect(verdict.kind).toBe(expected);
      }),
    );
  });
});

/** A clock and a transport scripted by the test: each call takes `step` ms of the clock. */
function scripted(outcomes: TransportOutcome[], step = 10) {
  let clock = 0;
  const calls: { timeoutMs: number; headers: Record<string, string>; body: string }[] = [];
  const transport: HookTransport = {
    async post(_url, headers, body, timeoutMs) {
      calls.push({ timeoutMs, headers, body });
      clock += step;
      return outcomes.shift() ?? { kind: 'failed', cause: 'network' };
    },
  };
  const breaker = new CircuitBreaker(() => clock);
  const ports = {
    url: 'https://legacy.example.com/check',
    timeoutMs: 100,
    secret: async () => SECRET,
    transport,
    breaker,
    now: () => clock,
    epochSeconds: () => 1_700_000_000,
  };
  return { ports, calls, advance: (ms: number) => (clock += ms), breaker };
}

const FIELDS = {
  appId: 'a',
  tenantId: 'public',
  userId: 'u',
  externalUserId: null,
  email: 'e@example.com',
  password: 'pw',
};

describe('hook check', () => {
  it('retries a refused connection once within the budget, and nothing else', async () => {
    const refusedThenMatch = scripted([
      { kind: 'failed', cause: 'refused' },
      { kind: 'answer', status: 200, body: '{"status":"PASSWORD_MATCH"}' },
    ]);
    expect((await checkPasswordWithHook(refusedThenMatch.ports, FIELDS)).verdict).toEqual({ kind: 'match' });
    expect(refusedThenMatch.calls.map((c) => c.timeoutMs)).toEqual([100, 90]);
    const twiceRefused = scripted([
      { kind: 'failed', cause: 'refused' },
      { kind: 'failed', cause: 'refused' },
    ]);
    expect((await checkPasswordWithHook(twiceRefused.ports, FIELDS)).verdict).toEqual({
      kind: 'unavailable',
      cause: 'refused',
    });
    const timeout = scripted([{ kind: 'failed', cause: 'timeout' }]);
    expect((await checkPasswordWithHook(timeout.ports, FIELDS)).verdict.kind).toBe('unavailable');
    expect(timeout.calls).toHaveLength(1);
    const refusedLate = scripted([{ kind: 'failed', cause: 'refused' }], 100);
    expect((await checkPasswordWithHook(refusedLate.ports, FIELDS)).verdict).toEqual({
      kind: 'unavailable',
      cause: 'timeout',
    });
    expect(refusedLate.calls).toHaveLength(1);
  });

  it('sends the signed body the reference endpoint accepts', async () => {
    const { ports, calls } = scripted([{ kind: 'answer', status: 200, body: '{"status":"PASSWORD_MISMATCH"}' }]);
    await checkPasswordWithHook(ports, FIELDS);
    const [call] = calls;
    expect(call?.headers['Content-Type']).toBe('application/json');
    expect(checkSignature(SECRET, call?.headers['X-Auth-Core-Signature'], call?.body ?? '', 1_700_000_000)).toBe('ok');
    expect(JSON.parse(call?.body ?? '')).toEqual({ ...FIELDS, timestamp: 1_700_000_000 });
  });

  it(`opens after ${BREAKER_SETTINGS.failuresToOpen} unavailable answers, half-opens after the cool-down, and closes on an answer`, async () => {
    const failures = Array.from(
      { length: BREAKER_SETTINGS.failuresToOpen },
      (): TransportOutcome => ({
        kind: 'answer',
        status: 500,
        body: '',
      }),
    );
    const { ports, calls, advance, breaker } = scripted([
      ...failures,
      { kind: 'answer', status: 500, body: '' },
      { kind: 'answer', status: 200, body: '{"status":"PASSWORD_MATCH"}' },
    ]);
    for (let i = 0; i < BREAKER_SETTINGS.failuresToOpen; i++) await checkPasswordWithHook(ports, FIELDS);
    expect(breaker.state()).toBe('open');
    const refused = await checkPasswordWithHook(ports, FIELDS);
    expect(refused.verdict).toEqual({ kind: 'unavailable', cause: 'circuit-open' });
    expect(refused.retryAfterSeconds).toBeGreaterThan(1);
    expect(calls).toHaveLength(BREAKER_SETTINGS.failuresToOpen);
    advance(BREAKER_SETTINGS.coolDownMs);
    expect(breaker.state()).toBe('half-open');
    // A failed probe opens it again for a whole cool-down.
    await checkPasswordWithHook(ports, FIELDS);
    expect(breaker.state()).toBe('open');
    advance(BREAKER_SETTINGS.coolDownMs);
    expect((await checkPasswordWithHook(ports, FIELDS)).verdict).toEqual({ kind: 'match' });
    expect(breaker.state()).toBe('closed');
    expect(calls).toHaveLength(BREAKER_SETTINGS.failuresToOpen + 2);
  });

  it('a half-open breaker lets one probe through at a time', () => {
    let now = 0;
    const breaker = new CircuitBreaker(() => now);
    for (let i = 0; i < BREAKER_SETTINGS.failuresToOpen; i++) breaker.record('unavailable');
    now += BREAKER_SETTINGS.coolDownMs;
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false);
    breaker.record('answered');
    expect(breaker.tryAcquire()).toBe(true);
  });
});

describe('pending login methods in storage', () => {
  const pending = {
    userId: 'u1',
    isPrimaryUser: false,
    timeJoined: 1_700_000_000_000,
    loginMethods: [
      {
        recipeId: 'emailpassword' as const,
        recipeUserId: 'u1',
        tenantIds: ['public'],
        timeJoined: 1_700_000_000_000,
        verified: false,
        email: 'ada@example.com',
        passwordMigration: 'hook' as const,
      },
    ],
    externalIds: { u1: { externalUserId: 'legacy-42' } },
    version: 1,
  };
  const migrated = {
    ...pending,
    version: 2,
    loginMethods: [{ ...pending.loginMethods[0], passwordMigration: undefined, passwordHash: '$2b$10$x' }],
  };

  it('a pending method owns a list entry (with the id the API shows) and counts as pending', () => {
    const entries = deriveItems('a', pending).filter((d) => d.item.entityType === 'PASSWORD_PENDING');
    expect(entries).toHaveLength(1);
    expect(entries[0]?.key.PK).toMatch(/^APP#a#PWPENDING#\d+$/);
    expect(entries[0]?.item).toMatchObject({ userId: 'legacy-42', email: 'ada@example.com' });
    const created = [...counterDeltas('a', [{ after: pending }]).values()].find((e) => e.key.SK === 'APP');
    expect(created?.deltas.get('pwPending')).toBe(1);
  });

  it('storing a hash removes the entry and the pending count in the same write', () => {
    const { passwordMigration: _p, ...hashed } = migrated.loginMethods[0] as Record<string, unknown>;
    const after = { ...migrated, loginMethods: [hashed as (typeof pending.loginMethods)[number]] };
    expect(deriveItems('a', after).some((d) => d.item.entityType === 'PASSWORD_PENDING')).toBe(false);
    const change = [...counterDeltas('a', [{ before: pending, after }]).values()];
    expect(change.map((e) => Object.fromEntries(e.deltas))).toEqual([{ pwPending: -1 }]);
  });
});

describe('hook check when the secret cannot be opened', () => {
  it('ends a half-open probe, so the breaker does not wait for it forever', async () => {
    const { ports, breaker, advance } = scripted([
      { kind: 'answer', status: 200, body: '{"status":"PASSWORD_MATCH"}' },
    ]);
    for (let i = 0; i < BREAKER_SETTINGS.failuresToOpen; i++) breaker.record('unavailable');
    advance(BREAKER_SETTINGS.coolDownMs);
    const failing = {
      ...ports,
      secret: async (): Promise<string> => {
        throw new Error('key service down');
      },
    };
    await expect(checkPasswordWithHook(failing, FIELDS)).rejects.toThrow('key service down');
    expect(breaker.state()).toBe('open');
    advance(BREAKER_SETTINGS.coolDownMs);
    expect((await checkPasswordWithHook(ports, FIELDS)).verdict).toEqual({ kind: 'match' });
  });
});
