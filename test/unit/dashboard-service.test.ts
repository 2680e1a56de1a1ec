/**
 * The dashboard use cases over an in-memory store (the port, functions/domain/dashboard/ports.ts)
 * and a virtual clock: what a sign-in costs when it fails, sessions expiring after 30 days, a
 * user change ending the user's sessions, a drawn user id that is taken, and request bodies of
 * any shape refused with a 400 or answered, never anything else.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deleteUserQuery, signInRequest } from '#functions/domain/dashboard/input.js';
import type { DashboardSession, DashboardStore, DashboardUser } from '#functions/domain/dashboard/ports.js';
import {
  createDashboardUser,
  DASHBOARD_SESSION_LIFETIME_MS,
  deleteDashboardUser,
  listDashboardUserSessions,
  parseCreateDashboardUser,
  parseUpdateDashboardUser,
  signInDashboardUser,
  updateDashboardUser,
  verifyDashboardSession,
} from '#functions/domain/dashboard/service.js';
import type { PasswordPorts } from '#functions/domain/users/deps.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { logger, setLogSink } from '#functions/shared/logger.js';
import { parseRequest } from '#functions/shared/request-schema.js';

const APP = 'shop';

/** The port in memory; `takenIds` makes the next creations meet a user id already taken. */
function memoryStore(options: { takenIds?: number } = {}) {
  const users = new Map<string, DashboardUser>();
  const sessions = new Map<string, DashboardSession>();
  let takenIds = options.takenIds ?? 0;
  const byEmail = (email: string) => [...users.values()].find((u) => u.email === email);
  const store: DashboardStore = {
    async createUser(_app, user) {
      if (takenIds > 0) {
        takenIds--;
        return 'id-taken';
      }
      if (byEmail(user.email)) return 'email-taken';
      users.set(user.userId, user);
      return 'created';
    },
    getUserById: async (_app, userId) => users.get(userId),
    getUserByEmail: async (_app, email) => byEmail(email),
    listUsers: async () => [...users.values()].sort((a, b) => a.timeJoined - b.timeJoined),
    async updateUser(_app, current, change) {
      const stored = users.get(current.userId);
      if (!stored || stored.email !== current.email || stored.passwordHash !== current.passwordHash) return 'changed';
      if (change.email !== undefined && byEmail(change.email)) return 'email-taken';
      users.set(current.userId, { ...stored, ...change });
      return 'updated';
    },
    async deleteUser(_app, current) {
      return users.delete(current.userId) ? 'deleted' : 'changed';
    },
    async createSession(_app, digest, session) {
      sessions.set(digest, session);
    },
    getSession: async (_app, digest) => sessions.get(digest),
    async deleteSession(_app, digest) {
      sessions.delete(digest);
    },
    listSessions: async (_app, userId) => [...sessions.values()].filter((s) => s.userId === userId),
    async deleteSessionsOf(_app, userId) {
      for (const [digest, s] of sessions) if (s.userId === userId) sessions.delete(digest);
    },
  };
  return { store, users, sessions };
}

/** Passwords "hashed" as `h:<password>`, counted, on a virtual clock with a dummy verify of 100 ms. */
function fakePasswords(floor: number | undefined = 100) {
  const clock = { t: 0 };
  const counts = { hash: 0, verify: 0, dummyVerify: 0 };
  const passwords: PasswordPorts = {
    hash: async (plain) => {
      counts.hash++;
      return `h:${plain}`;
    },
    verify: async (plain, stored) => {
      counts.verify++;
      clock.t += 1; // a cheap hash: far below the dummy's duration
      return stored === `h:${plain}` ? 'match' : 'mismatch';
    },
    dummyVerify: async () => {
      counts.dummyVerify++;
      clock.t += 100;
    },
    timing: {
      now: () => clock.t,
      sleep: async (ms) => {
        clock.t += ms;
      },
      floorMs: () => floor,
    },
  };
  return { passwords, counts, clock };
}

function setup(options: { takenIds?: number } = {}) {
  const memory = memoryStore(options);
  const fake = fakePasswords();
  const wall = { now: 1_700_000_000_000 };
  const deps = { store: memory.store, passwords: fake.passwords, now: () => wall.now };
  return { ...memory, ...fake, wall, deps };
}

const EMAIL = 'ada@example.com';
const PASSWORD = 'password123';

async function withUser(s: ReturnType<typeof setup>) {
  const created = await createDashboardUser(s.deps, APP, { email: EMAIL, password: PASSWORD });
  if (created.status !== 'OK') throw new Error(created.status);
  return created.user;
}

// The routes' schemas, read as the pipeline reads a body or a query.
const parseDashboardSignIn = (body: unknown) => parseRequest(signInRequest, body);
const parseDeleteDashboardUser = (query: unknown) => parseRequest(deleteUserQuery, query, 'query');

describe('dashboard sign-in', () => {
  it('an unknown email costs one dummy verify; a wrong password is held to the dummy verify duration', async () => {
    const s = setup();
    await withUser(s);
    const before = s.clock.t;
    expect(await signInDashboardUser(s.deps, APP, { email: 'nobody@example.com', password: PASSWORD })).toEqual({
      status: 'INVALID_CREDENTIALS_ERROR',
    });
    expect(s.counts).toMatchObject({ verify: 0, dummyVerify: 1 });
    expect(s.clock.t - before).toBe(100);

    const wrongStarted = s.clock.t;
    expect(await signInDashboardUser(s.deps, APP, { email: EMAIL, password: 'wrong-1234' })).toEqual({
      status: 'INVALID_CREDENTIALS_ERROR',
    });
    // The cheap verify did next to no work: the dummy runs for real, and nothing answers sooner.
    expect(s.counts).toMatchObject({ verify: 1, dummyVerify: 2 });
    expect(s.clock.t - wrongStarted).toBeGreaterThanOrEqual(100);
    expect(s.sessions.size).toBe(0);
  });

  it('a right password opens a 30-day session, stored under a digest of its id only', async () => {
    const s = setup();
    const user = await withUser(s);
    const signedIn = await signInDashboardUser(s.deps, APP, { email: EMAIL, password: PASSWORD });
    if (signedIn.status !== 'OK') throw new Error('not signed in');
    expect(s.sessions.size).toBe(1);
    const [digest, session] = [...s.sessions][0] as [string, DashboardSession];
    expect(digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(digest).not.toContain(signedIn.sessionId);
    expect(session).toEqual({ userId: user.userId, timeCreated: s.wall.now, expiry: s.wall.now + 30 * 86_400_000 });
    expect(DASHBOARD_SESSION_LIFETIME_MS).toBe(30 * 86_400_000);
  });

  it('a session verifies until its expiry, not after; it is listed only while live', async () => {
    const s = setup();
    const user = await withUser(s);
    const signedIn = await signInDashboardUser(s.deps, APP, { email: EMAIL, password: PASSWORD });
    if (signedIn.status !== 'OK') throw new Error('not signed in');
    const check = () => verifyDashboardSession(s.deps, APP, { sessionId: signedIn.sessionId, withEmail: true });
    s.wall.now += DASHBOARD_SESSION_LIFETIME_MS;
    expect(await check()).toEqual({ status: 'OK', email: EMAIL });
    expect((await listDashboardUserSessions(s.deps, APP, { userId: user.userId })).sessions).toHaveLength(1);
    s.wall.now += 1;
    expect(await check()).toEqual({ status: 'INVALID_SESSION_ERROR' });
    expect((await listDashboardUserSessions(s.deps, APP, { userId: user.userId })).sessions).toEqual([]);
  });

  it('a session of a removed user does not verify, even if it was left behind', async () => {
    const s = setup();
    const user = await withUser(s);
    const signedIn = await signInDashboardUser(s.deps, APP, { email: EMAIL, password: PASSWORD });
    if (signedIn.status !== 'OK') throw new Error('not signed in');
    s.users.delete(user.userId);
    expect(await verifyDashboardSession(s.deps, APP, { sessionId: signedIn.sessionId, withEmail: false })).toEqual({
      status: 'INVALID_SESSION_ERROR',
    });
  });
});

describe('dashboard users', () => {
  it('draw another user id when the drawn one is taken', async () => {
    const s = setup({ takenIds: 2 });
    const created = await createDashboardUser(s.deps, APP, { email: EMAIL, password: PASSWORD });
    expect(created.status).toBe('OK');
    expect(s.users.size).toBe(1);
  });

  it('an email already taken is refused before any hashing', async () => {
    const s = setup();
    await withUser(s);
    const hashes = s.counts.hash;
    expect(await createDashboardUser(s.deps, APP, { email: EMAIL, password: 'other-pass-9' })).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
    expect(s.counts.hash).toBe(hashes);
  });

  it('any change ends every session of the user; a removal too', async () => {
    const s = setup();
    const user = await withUser(s);
    for (let i = 0; i < 3; i++) await signInDashboardUser(s.deps, APP, { email: EMAIL, password: PASSWORD });
    expect(s.sessions.size).toBe(3);
    expect(await updateDashboardUser(s.deps, APP, { user: { userId: user.userId } })).toMatchObject({ status: 'OK' });
    expect(s.sessions.size).toBe(0);
    await signInDashboardUser(s.deps, APP, { email: EMAIL, password: PASSWORD });
    expect(await deleteDashboardUser(s.deps, APP, { user: { email: EMAIL } })).toEqual({
      status: 'OK',
      didUserExist: true,
    });
    expect(s.sessions.size).toBe(0);
  });

  it('ids and emails no dashboard user can have are answered without a lookup', async () => {
    const s = setup();
    const long = 'x'.repeat(200);
    expect(await updateDashboardUser(s.deps, APP, { user: { userId: long }, newPassword: PASSWORD })).toEqual({
      status: 'UNKNOWN_USER_ERROR',
    });
    expect(await deleteDashboardUser(s.deps, APP, { user: { email: `${long}${long}@x.co` } })).toEqual({
      status: 'OK',
      didUserExist: false,
    });
  });
});

describe('request bodies of any shape', () => {
  const field = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.object(),
    fc.array(fc.string()),
  );
  const body = fc.record(
    {
      email: field,
      password: field,
      newEmail: field,
      newPassword: field,
      userId: field,
      sessionId: field,
    },
    { requiredKeys: [] },
  );
  const onlyBadRequests = (parse: () => unknown) => {
    try {
      parse();
    } catch (error) {
      expect(error).toBeInstanceOf(BadRequestError);
    }
  };

  it('are parsed, answered early, or refused with a 400', () => {
    fc.assert(
      fc.property(body, (b) => {
        onlyBadRequests(() => parseDashboardSignIn(b));
        onlyBadRequests(() => parseCreateDashboardUser(b));
        onlyBadRequests(() => parseUpdateDashboardUser(b));
      }),
    );
  });

  it('queries of any strings are parsed or refused with a 400', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('userId', 'email', 'other'), fc.string()), (query) => {
        onlyBadRequests(() => parseDeleteDashboardUser(query));
      }),
    );
  });

  it('parse what a valid request holds, trimmed and with the email normalised', () => {
    expect(parseDashboardSignIn({ email: ' Ada@Example.com\t', password: ' secret-1 ' })).toEqual({
      email: 'ada@example.com',
      password: 'secret-1',
    });
    expect(parseUpdateDashboardUser({ email: 'A@B.co', newPassword: 'pass-word-2' })).toEqual({
      user: { email: 'a@b.co' },
      newPassword: 'pass-word-2',
    });
    expect(parseDeleteDashboardUser({ userId: ' u1 ', email: 'ignored' })).toEqual({ user: { userId: 'u1' } });
  });
});

describe('the log', () => {
  it('never shows a field named like a session id, whatever it is nested in', () => {
    const lines: string[] = [];
    const previous = setLogSink((line) => lines.push(line));
    try {
      logger.error('oops', { sessionId: 'bearer-1', request: { session_id: 'bearer-2', SessionID: 'bearer-3' } });
    } finally {
      setLogSink(previous);
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/bearer-/);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ sessionId: '[redacted]' });
  });
});
