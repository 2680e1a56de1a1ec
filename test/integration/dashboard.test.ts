/**
 * The user-management dashboard's core routes (docs/dashboard.md) against DynamoDB Local: its
 * own users (created, changed, removed, listed), their sign-in and sessions, the tenant page's
 * configuration, the search tags and telemetry; what is stored (the password hashed with the
 * app's algorithm, sessions only as digests), the app's removal taking them with it, and no
 * password or session id in any log line.
 */
import { createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardStore } from '#functions/storage/dashboard-store.js';
import { baseTable } from '#functions/wiring/tables.js';
import { appItems, call, captureLogs, createApp, expectNoSecrets, itemText, readItem } from './users-support.js';

const logs = captureLogs();
afterAll(() => logs.restore());

const PASSWORD = 'dashboard-pass-1';
/** Every password and session id the tests handle: none may reach a log line. */
const secrets: string[] = [PASSWORD];

let appId: string;
let base: string;

beforeAll(async () => {
  appId = await createApp({}, ['t1'], 'dash');
  base = `/appid-${appId}`;
});

const createUser = (email: string, password = PASSWORD) =>
  call('POST', `${base}/recipe/dashboard/user`, { body: { email, password } });
const signIn = async (email: string, password = PASSWORD) => {
  const reply = await call('POST', `${base}/recipe/dashboard/signin`, { body: { email, password } });
  if (typeof reply.json?.sessionId === 'string') secrets.push(reply.json.sessionId);
  return reply;
};
const verify = (sessionId: string, cdi = '5.4') =>
  call('POST', `${base}/recipe/dashboard/session/verify`, {
    body: { sessionId },
    headers: { 'cdi-version': cdi },
  });
const sessionsOf = (userId: string) =>
  call('GET', `${base}/recipe/dashboard/user/sessions?userId=${encodeURIComponent(userId)}`);
const listUsers = () => call('GET', `${base}/recipe/dashboard/users`);
const digest = (sessionId: string) => createHash('sha256').update(sessionId).digest('base64url');

describe('dashboard users', () => {
  it('are created with a normalised email and their password hashed with the app algorithm', async () => {
    const created = await createUser('  Ada@Example.COM ');
    expect(created.status, created.text).toBe(200);
    expect(created.json).toEqual({
      status: 'OK',
      user: { userId: expect.any(String), email: 'ada@example.com', timeJoined: expect.any(Number) },
    });
    const { userId } = created.json.user;
    expect(userId).toMatch(/^[0-9a-f-]{36}$/);
    const stored = await readItem({ PK: `APP#${appId}`, SK: `DASHBOARD#USER#${userId}` });
    expect(stored?.passwordHash).toMatch(/^\$2[ab]\$04\$/);
    expect(await bcrypt.compare(PASSWORD, stored?.passwordHash)).toBe(true);
    const reservation = await readItem({ PK: `APP#${appId}`, SK: 'DASHBOARD#EMAIL#ada@example.com' });
    expect(reservation?.userId).toBe(userId);
    for (const item of await appItems(appId, { ownPartition: true })) {
      expect(itemText(item)).not.toContain(PASSWORD);
    }
    expect((await createUser('ADA@example.com', 'other-pass-2')).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
  });

  it('answer INVALID_EMAIL_ERROR and PASSWORD_WEAK_ERROR as the reference does, before the password is looked at', async () => {
    expect((await createUser('a@b.c')).json).toEqual({ status: 'INVALID_EMAIL_ERROR' });
    // The email is checked first: an invalid email with a weak password is INVALID_EMAIL_ERROR.
    expect((await createUser('nope', 'x')).json).toEqual({ status: 'INVALID_EMAIL_ERROR' });
    const weak = async (password: string) => (await createUser('weak@example.com', password)).json;
    expect(await weak('short1')).toEqual({
      status: 'PASSWORD_WEAK_ERROR',
      message: 'Password must contain at least 8 characters, including a number',
    });
    expect(await weak(`a1${'x'.repeat(98)}`)).toEqual({
      status: 'PASSWORD_WEAK_ERROR',
      message: "Password's length must be lesser than 100 characters",
    });
    expect(await weak('12345678')).toEqual({
      status: 'PASSWORD_WEAK_ERROR',
      message: 'Password must contain at least one alphabet',
    });
    expect(await weak('abcdefgh')).toEqual({
      status: 'PASSWORD_WEAK_ERROR',
      message: 'Password must contain at least one number',
    });
    // None of them was created.
    const emails = (await listUsers()).json.users.map((u: { email: string }) => u.email);
    expect(emails).not.toContain('weak@example.com');
  });

  it('refuse bad input with the reference messages', async () => {
    const post = (body: unknown) => call('POST', `${base}/recipe/dashboard/user`, { body });
    const cases: [unknown, string][] = [
      [{}, "Field name 'email' is invalid in JSON input"],
      [{ email: 'x@example.com' }, "Field name 'password' is invalid in JSON input"],
      [{ email: 123, password: 'password123' }, "Field name 'email' is invalid in JSON input"],
      [{ email: '  ', password: 'password123' }, "Field name 'email' cannot be an empty String"],
      [{ email: 'x@example.com', password: 123 }, "Field name 'password' is invalid in JSON input"],
      [{ email: 'x@example.com', password: '  ' }, "Field name 'password' cannot be an empty String"],
      [
        { email: `${'a'.repeat(250)}@example.com`, password: 'password123' },
        "Field name 'email' is too long. Max length is 256.",
      ],
    ];
    for (const [body, message] of cases) {
      const reply = await post(body);
      expect([reply.status, reply.text], JSON.stringify(body)).toEqual([400, message]);
    }
    const put = (body: unknown) => call('PUT', `${base}/recipe/dashboard/user`, { body });
    expect((await put({})).text).toBe("Either field 'email' or 'userId' must be present");
    expect((await put({ userId: 123 })).text).toBe("Field name 'userId' is invalid in JSON input");
    expect((await put({ userId: '  ' })).text).toBe("Field name 'userId' cannot be an empty String");
    expect((await put({ email: '  ' })).text).toBe("Field name 'email' cannot be an empty String");
    expect((await put({ newEmail: 123 })).text).toBe("Field name 'newEmail' is invalid in JSON input");
    const del = (query: string) => call('DELETE', `${base}/recipe/dashboard/user${query}`);
    expect([(await del('')).status, (await del('')).text]).toEqual([
      400,
      "Either field 'email' or 'userId' must be present",
    ]);
    expect((await del('?userId=%20')).text).toBe("Field name 'userId' cannot be an empty String");
    expect((await del('?email=')).text).toBe("Field name 'email' cannot be an empty String");
    expect((await sessionsOf(' ')).text).toBe("Field name 'userId' cannot be an empty String");
    expect((await call('GET', `${base}/recipe/dashboard/user/sessions`)).text).toBe(
      "Field name 'userId' is missing in GET request",
    );
    const delSession = (query: string) => call('DELETE', `${base}/recipe/dashboard/session${query}`);
    expect((await delSession('')).text).toBe("Field name 'sessionId' is missing in GET request");
    expect((await delSession('?sessionId=')).text).toBe("Field name 'sessionId' cannot be an empty String");
    const signInBody = (body: unknown) => call('POST', `${base}/recipe/dashboard/signin`, { body });
    expect((await signInBody({ password: 'x' })).text).toBe("Field name 'email' is invalid in JSON input");
    expect((await signInBody({ email: 'x@y.co', password: ' ' })).text).toBe(
      "Field name 'password' cannot be an empty String",
    );
    const verifyBody = await call('POST', `${base}/recipe/dashboard/session/verify`, { body: {} });
    expect([verifyBody.status, verifyBody.text]).toEqual([400, "Field name 'sessionId' is invalid in JSON input"]);
  });

  it('are listed oldest first, without their password hashes', async () => {
    const emails = ['list-1@example.com', 'list-2@example.com', 'list-3@example.com'];
    const ids: string[] = [];
    for (const email of emails) ids.push((await createUser(email)).json.user.userId);
    const listed = await listUsers();
    expect(listed.status).toBe(200);
    const users = listed.json.users as { userId: string; email: string; timeJoined: number }[];
    const mine = users.filter((u) => emails.includes(u.email));
    expect(mine.map((u) => u.userId)).toEqual(ids);
    for (const user of users) expect(Object.keys(user).sort()).toEqual(['email', 'timeJoined', 'userId']);
    const times = users.map((u) => u.timeJoined);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('are separate per app', async () => {
    const other = await createApp({}, [], 'dash-other');
    const reply = await call('GET', `/appid-${other}/recipe/dashboard/users`);
    expect(reply.json).toEqual({ status: 'OK', users: [] });
    const signedIn = await call('POST', `/appid-${other}/recipe/dashboard/signin`, {
      body: { email: 'ada@example.com', password: PASSWORD },
    });
    expect(signedIn.json).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
  });
});

describe('dashboard sign-in and sessions', () => {
  it('signs in with the email in any case and answers a session id stored only as its digest', async () => {
    await createUser('grace@example.com');
    const reply = await signIn('GRACE@example.com');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toEqual({ status: 'OK', sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const { sessionId } = reply.json;
    const stored = await readItem({ PK: `APP#${appId}`, SK: `DASHBOARD#SESSION#${digest(sessionId)}` });
    expect(stored).toMatchObject({ userId: expect.any(String), timeCreated: expect.any(Number) });
    expect(stored?.expiry - stored?.timeCreated).toBe(30 * 24 * 3600 * 1000);
    expect(stored?.expiresAt).toBe(Math.ceil(stored?.expiry / 1000));
    for (const item of await appItems(appId, { ownPartition: true })) {
      expect(itemText(item)).not.toContain(sessionId);
    }
  });

  it('answers INVALID_CREDENTIALS_ERROR for a wrong password and for an unknown email alike', async () => {
    await createUser('hedy@example.com');
    expect((await signIn('hedy@example.com', 'wrong-pass-1')).json).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
    expect((await signIn('nobody@example.com')).json).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
    expect((await signIn(`${'x'.repeat(300)}@example.com`)).json).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
  });

  it('verifies a live session (with the email from CDI 3.0), then not once it is revoked', async () => {
    await createUser('alan@example.com');
    const { sessionId } = (await signIn('alan@example.com')).json;
    expect((await verify(sessionId, '2.18')).json).toEqual({ status: 'OK' });
    expect((await verify(sessionId, '5.4')).json).toEqual({ status: 'OK', email: 'alan@example.com' });
    expect((await verify(`${sessionId}x`)).json).toEqual({ status: 'INVALID_SESSION_ERROR' });
    // A body on a DELETE is ignored: the session id is in the query.
    const revoked = await call('DELETE', `${base}/recipe/dashboard/session?sessionId=${sessionId}`, {
      rawBody: 'not json',
    });
    expect([revoked.status, revoked.json]).toEqual([200, { status: 'OK' }]);
    expect((await verify(sessionId)).json).toEqual({ status: 'INVALID_SESSION_ERROR' });
    const again = await call('DELETE', `${base}/recipe/dashboard/session?sessionId=${sessionId}`);
    expect(again.json).toEqual({ status: 'OK' });
  });

  it('lists a user live sessions without their ids; an expired session neither verifies nor is listed', async () => {
    const { userId } = (await createUser('barbara@example.com')).json.user;
    const first = (await signIn('barbara@example.com')).json.sessionId;
    await signIn('barbara@example.com');
    const expiredId = 'an-expired-dashboard-session-id';
    secrets.push(expiredId);
    await createDashboardStore(baseTable).createSession(appId, digest(expiredId), {
      userId,
      timeCreated: Date.now() - 31 * 24 * 3600 * 1000,
      expiry: Date.now() - 24 * 3600 * 1000,
    });
    expect((await verify(expiredId)).json).toEqual({ status: 'INVALID_SESSION_ERROR' });
    const listed = await sessionsOf(userId);
    expect(listed.json.status).toBe('OK');
    expect(listed.json.sessions).toHaveLength(2);
    for (const session of listed.json.sessions) {
      expect(session).toEqual({ userId, timeCreated: expect.any(Number), expiry: expect.any(Number) });
      expect(session.expiry - session.timeCreated).toBe(30 * 24 * 3600 * 1000);
    }
    expect(JSON.stringify(listed.json)).not.toContain(first);
    expect((await sessionsOf('no-such-user')).json).toEqual({ status: 'OK', sessions: [] });
    expect((await sessionsOf('x'.repeat(5000))).json).toEqual({ status: 'OK', sessions: [] });
  });
});

describe('changing and removing dashboard users', () => {
  it('changes email and password by email, ends the user sessions, and signs in only with the new ones', async () => {
    const { userId } = (await createUser('edsger@example.com')).json.user;
    const { sessionId } = (await signIn('edsger@example.com')).json;
    const newPassword = 'new-dashboard-pass-2';
    secrets.push(newPassword);
    const changed = await call('PUT', `${base}/recipe/dashboard/user`, {
      body: { email: 'EDSGER@example.com', newEmail: 'Dijkstra@Example.com', newPassword },
    });
    expect(changed.json).toEqual({
      status: 'OK',
      user: { userId, email: 'dijkstra@example.com', timeJoined: expect.any(Number) },
    });
    expect((await verify(sessionId)).json).toEqual({ status: 'INVALID_SESSION_ERROR' });
    expect((await signIn('edsger@example.com')).json.status).toBe('INVALID_CREDENTIALS_ERROR');
    expect((await signIn('dijkstra@example.com')).json.status).toBe('INVALID_CREDENTIALS_ERROR');
    expect((await signIn('dijkstra@example.com', newPassword)).json.status).toBe('OK');
    // The old email is free again; the old reservation is gone.
    expect(await readItem({ PK: `APP#${appId}`, SK: 'DASHBOARD#EMAIL#edsger@example.com' })).toBeUndefined();
    expect((await createUser('edsger@example.com')).json.status).toBe('OK');
  });

  it('changes by userId; refuses an email another dashboard user has, and an unknown user', async () => {
    const { userId } = (await createUser('niklaus@example.com')).json.user;
    await createUser('wirth@example.com');
    const put = (body: Record<string, unknown>) => call('PUT', `${base}/recipe/dashboard/user`, { body });
    expect((await put({ userId, newEmail: 'wirth@example.com' })).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
    expect((await put({ userId, newEmail: 'not-an-email' })).json).toEqual({ status: 'INVALID_EMAIL_ERROR' });
    expect((await put({ userId, newPassword: 'weak' })).json).toEqual({
      status: 'PASSWORD_WEAK_ERROR',
      message: 'Password must contain at least 8 characters, including a number',
    });
    expect((await put({ userId: 'no-such-user', newPassword: 'fine-pass-3' })).json).toEqual({
      status: 'UNKNOWN_USER_ERROR',
    });
    expect((await put({ email: 'nobody@example.com', newPassword: 'fine-pass-3' })).json).toEqual({
      status: 'UNKNOWN_USER_ERROR',
    });
    // The same email again is no change; userId wins over email.
    const same = await put({ userId, email: 'ignored@example.com', newEmail: 'NIKLAUS@example.com' });
    expect(same.json).toMatchObject({ status: 'OK', user: { userId, email: 'niklaus@example.com' } });
    expect((await signIn('niklaus@example.com')).json.status).toBe('OK');
  });

  it('removes by userId or by email, with the user sessions', async () => {
    const { userId } = (await createUser('tony@example.com')).json.user;
    const { sessionId } = (await signIn('tony@example.com')).json;
    const del = (query: string) => call('DELETE', `${base}/recipe/dashboard/user${query}`);
    expect((await del(`?userId=${userId}`)).json).toEqual({ status: 'OK', didUserExist: true });
    expect((await del(`?userId=${userId}`)).json).toEqual({ status: 'OK', didUserExist: false });
    expect((await verify(sessionId)).json).toEqual({ status: 'INVALID_SESSION_ERROR' });
    expect((await sessionsOf(userId)).json.sessions).toEqual([]);
    expect(await readItem({ PK: `APP#${appId}`, SK: `DASHBOARD#SESSION#${digest(sessionId)}` })).toBeUndefined();
    expect(await readItem({ PK: `APP#${appId}`, SK: 'DASHBOARD#EMAIL#tony@example.com' })).toBeUndefined();

    await createUser('hoare@example.com');
    expect((await del('?email=HOARE@example.com')).json).toEqual({ status: 'OK', didUserExist: true });
    expect((await del('?email=hoare@example.com')).json).toEqual({ status: 'OK', didUserExist: false });
    expect((await signIn('hoare@example.com')).json.status).toBe('INVALID_CREDENTIALS_ERROR');
  });

  it('creates one user when the same email is sent twice at once', async () => {
    const replies = await Promise.all([createUser('twice@example.com'), createUser('twice@example.com')]);
    expect(replies.map((r) => r.json.status).sort()).toEqual(['EMAIL_ALREADY_EXISTS_ERROR', 'OK']);
    const listed = (await listUsers()).json.users.filter((u: { email: string }) => u.email === 'twice@example.com');
    expect(listed).toHaveLength(1);
  });
});

describe('scope', () => {
  it('answers from the public tenant only, and 400 for an unknown app', async () => {
    const fromTenant = await call('GET', `${base}/t1/recipe/dashboard/users`);
    expect([fromTenant.status, fromTenant.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    const unknown = await call('GET', '/appid-no-such-dash-app/recipe/dashboard/users');
    expect(unknown.status).toBe(400);
    expect(unknown.text).toMatch(/^AppId or tenantId not found/);
  });

  it('hashes with Argon2 in an app that uses it', async () => {
    const argonApp = await createApp({ password_hashing_alg: 'ARGON2' }, [], 'dash-argon');
    const created = await call('POST', `/appid-${argonApp}/recipe/dashboard/user`, {
      body: { email: 'argon@example.com', password: PASSWORD },
    });
    const stored = await readItem({ PK: `APP#${argonApp}`, SK: `DASHBOARD#USER#${created.json.user.userId}` });
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
    const signedIn = await call('POST', `/appid-${argonApp}/recipe/dashboard/signin`, {
      body: { email: 'argon@example.com', password: PASSWORD },
    });
    expect(signedIn.json.status).toBe('OK');
    secrets.push(signedIn.json.sessionId);
  });

  it('deleting the app deletes its dashboard users and sessions', async () => {
    const doomed = await createApp({}, [], 'dash-doomed');
    const prefix = `/appid-${doomed}`;
    await call('POST', `${prefix}/recipe/dashboard/user`, { body: { email: 'gone@example.com', password: PASSWORD } });
    const signedIn = await call('POST', `${prefix}/recipe/dashboard/signin`, {
      body: { email: 'gone@example.com', password: PASSWORD },
    });
    secrets.push(signedIn.json.sessionId);
    const types = new Set((await appItems(doomed, { ownPartition: true })).map((item) => item.entityType));
    expect([...types]).toEqual(expect.arrayContaining(['DASHBOARD_USER', 'DASHBOARD_EMAIL', 'DASHBOARD_SESSION']));
    const removed = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId: doomed } });
    expect(removed.json).toMatchObject({ status: 'OK', didExist: true });
    expect(await appItems(doomed, { ownPartition: true })).toEqual([]);
  });
});

describe('the tenant page configuration, search tags and telemetry', () => {
  it('lists the keys an app or tenant may set, with the tenant values and fingerprints for credentials', async () => {
    const apiKey = 'dashboard-config-api-key-0123456789';
    secrets.push(apiKey);
    const configApp = await createApp({ api_keys: apiKey, password_hashing_alg: 'ARGON2' }, [], 'dash-config');
    const headers = { 'api-key': apiKey };
    const tenantPut = await call('PUT', `/appid-${configApp}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: 't1', coreConfig: { passwordless_code_lifetime: 60000 } },
      headers,
    });
    expect(tenantPut.status, tenantPut.text).toBe(200);
    const config = async (tenant: string) => {
      const reply = await call('GET', `/appid-${configApp}/${tenant}/recipe/dashboard/tenant/core-config`, { headers });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json.status).toBe('OK');
      return new Map((reply.json.config as { key: string }[]).map((field) => [field.key, field as any]));
    };
    const publicConfig = await config('public');
    const t1Config = await config('t1');
    for (const field of publicConfig.values()) {
      expect(Object.keys(field).sort()).toEqual(
        [
          'key',
          'valueType',
          'value',
          'description',
          'isDifferentAcrossTenants',
          'possibleValues',
          'isNullable',
          'defaultValue',
          'isPluginProperty',
          'isPluginPropertyEditable',
        ].sort(),
      );
    }
    expect(publicConfig.get('passwordless_code_lifetime')).toMatchObject({
      valueType: 'number',
      value: 900000,
      defaultValue: 900000,
      isDifferentAcrossTenants: true,
      isNullable: false,
    });
    expect(t1Config.get('passwordless_code_lifetime')?.value).toBe(60000);
    expect(publicConfig.get('password_hashing_alg')).toMatchObject({
      valueType: 'enum',
      value: 'ARGON2',
      possibleValues: ['ARGON2', 'BCRYPT'],
      isDifferentAcrossTenants: false,
    });
    const fingerprint = `sha256:${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`;
    expect(publicConfig.get('api_keys')?.value).toBe(fingerprint);
    // Keys only the base configuration sets (the reference's file-only keys) are not shown.
    expect(publicConfig.has('port')).toBe(false);
    expect(publicConfig.has('bcrypt_log_rounds')).toBe(false);
    const unknownTenant = await call('GET', `/appid-${configApp}/t9/recipe/dashboard/tenant/core-config`, {
      headers,
    });
    expect(unknownTenant.status).toBe(400);
  });

  it('answers the search tags from any tenant, and that telemetry is off', async () => {
    for (const path of ['/user/search/tags', `${base}/user/search/tags`, `${base}/t1/user/search/tags`]) {
      expect((await call('GET', path)).json).toEqual({ status: 'OK', tags: ['email', 'phone', 'provider'] });
    }
    expect((await call('GET', `${base}/telemetry`)).json).toEqual({ exists: false });
    expect((await call('GET', `${base}/t1/telemetry`)).status).toBe(403);
  });
});

describe('logs', () => {
  it('hold no dashboard password and no session id', () => {
    expect(logs.lines.length).toBeGreaterThan(0);
    expectNoSecrets(logs.lines, secrets);
  });
});
