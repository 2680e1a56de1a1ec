/**
 * The user-management dashboard through a real application against `npm start`
 * (docs/dashboard.md): the Express backend of test/e2e/fixtures/sdk-app-server.ts with
 * supertokens-node's Dashboard (sign-in with the core's email/password dashboard users),
 * EmailPassword, Session, UserRoles, UserMetadata and Multitenancy recipes. The dashboard's pages
 * come from a CDN this test cannot reach, so it speaks to the recipe's API as those pages do:
 * `/auth/dashboard/api/…` with `Authorization: Bearer <sessionId>`.
 *
 * Two users migrated from a legacy system (`POST /bulk-import/import`, with their bcrypt hashes,
 * names in their metadata and a role) are listed, found by the dashboard's search, and opened:
 * details, metadata, roles and the session one of them holds after signing in through the app with
 * their old password. Then the tenant page and the search tags; a wrong dashboard password, a
 * request without a session and one after sign-out are refused; no password or session id
 * reaches the runtime's logs.
 */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalProcess } from '../helpers/local-process.js';
import { coreCaller } from './migrate-helpers.js';
import {
  AppServer,
  Browser,
  expectNoSecretInLogs,
  type Reply,
  startRuntime,
  stopRuntime,
  tag,
} from './sdk-app-helpers.js';

const API_KEY = `sdk-dashboard-${randomBytes(12).toString('hex')}`;
const APP_ID = `sdkdash-${randomBytes(4).toString('hex')}`;
const RECIPES = 'dashboard,emailpassword,session,userroles,usermetadata,multitenancy';
const T = tag();

/** The legacy system's users, as the migration imports them. */
const GRACE = {
  id: `legacy|grace-${T}`,
  email: `grace.hopper.${T}@example.com`,
  password: `grace-${randomBytes(6).toString('hex')}`,
  firstName: 'Grace',
  lastName: 'Hopper',
};
const ALAN = {
  id: `legacy|alan-${T}`,
  email: `alan.turing.${T}@example.org`,
  password: `alan-${randomBytes(6).toString('hex')}`,
  firstName: 'Alan',
  lastName: 'Turing',
};
/** The person who runs the dashboard: a dashboard user of the core, not one of the app's users. */
const OPS = { email: `ops.${T}@example.com`, password: `ops-pass-${randomBytes(6).toString('hex')}1` };

let runtime: LocalProcess | undefined;
let server: AppServer;
const core = coreCaller(() => runtime!, API_KEY);
/** Every secret the tests handled: none may be in the runtime's logs. */
const secrets: string[] = [API_KEY, GRACE.password, ALAN.password, OPS.password];

/** The dashboard's pages as they call the recipe's API: the session id as a bearer token. */
async function dashboardApi(method: string, path: string, sessionId?: string, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (sessionId) headers.authorization = `Bearer ${sessionId}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}/auth/dashboard/api${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // a plain-text answer stays text
  }
  return { status: response.status, json };
}

async function dashboardSignIn(email: string, password: string): Promise<Reply> {
  const reply = await dashboardApi('POST', '/signin', undefined, { email, password });
  const sessionId = (reply.json as { sessionId?: string }).sessionId;
  if (sessionId) secrets.push(sessionId);
  return reply;
}

const importUser = async (user: typeof GRACE, timeJoined: number) => {
  const reply = await core('POST', `/appid-${APP_ID}/bulk-import/import`, {
    externalUserId: user.id,
    userMetadata: { first_name: user.firstName, last_name: user.lastName, plan: 'legacy-gold' },
    userRoles: [{ role: 'editor', tenantIds: ['public'] }],
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email: user.email,
        passwordHash: bcrypt.hashSync(user.password, 4),
        hashingAlgorithm: 'BCRYPT',
        isVerified: true,
        isPrimary: false,
        timeJoinedInMSSinceEpoch: timeJoined,
        tenantIds: ['public'],
      },
    ],
  });
  expect(reply.status, reply.text).toBe(200);
};

beforeAll(async () => {
  runtime = await startRuntime(API_KEY);
  expect((await core('PUT', '/recipe/multitenancy/app/v2', { appId: APP_ID })).status).toBe(200);
  expect((await core('PUT', `/appid-${APP_ID}/recipe/role`, { role: 'editor', permissions: ['write'] })).status).toBe(
    200,
  );
  await importUser(GRACE, Date.parse('2019-03-04T05:06:07Z'));
  await importUser(ALAN, Date.parse('2020-04-05T06:07:08Z'));
  const created = await core('POST', `/appid-${APP_ID}/recipe/dashboard/user`, OPS);
  expect(created.json).toMatchObject({ status: 'OK', user: { email: OPS.email } });
  server = await AppServer.start(runtime, APP_ID, API_KEY, { recipes: RECIPES });
}, 180_000);

afterAll(async () => {
  server?.stop();
  await stopRuntime(runtime);
});

describe('the dashboard of an app with migrated users', () => {
  let sessionId: string;

  it('lets a dashboard user sign in with email and password, and no one else', async () => {
    const wrong = await dashboardSignIn(OPS.email, `${OPS.password}x`);
    expect(wrong).toEqual({ status: 200, json: { status: 'INVALID_CREDENTIALS_ERROR' } });
    // An app user is not a dashboard user.
    expect((await dashboardSignIn(GRACE.email, GRACE.password)).json).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
    const signedIn = await dashboardSignIn(OPS.email.toUpperCase(), OPS.password);
    expect(signedIn.status).toBe(200);
    expect(signedIn.json).toEqual({ status: 'OK', sessionId: expect.any(String) });
    sessionId = (signedIn.json as { sessionId: string }).sessionId;

    // Without an Authorization header the recipe sends the core no session id: the core's 400
    // (as the reference's) becomes the recipe's error. A wrong one is the recipe's 401.
    expect((await dashboardApi('GET', '/users?limit=10')).status).toBeGreaterThanOrEqual(400);
    expect((await dashboardApi('GET', '/users?limit=10', 'not-a-session')).status).toBe(401);
  });

  it('lists the migrated users, newest first, with the names from their metadata', async () => {
    const listed = await dashboardApi('GET', '/users?limit=10', sessionId);
    expect(listed.status).toBe(200);
    const { users } = listed.json as { users: Record<string, any>[] };
    expect(users.map((u) => u.id)).toEqual([ALAN.id, GRACE.id]);
    expect(users[1]).toMatchObject({
      id: GRACE.id,
      emails: [GRACE.email],
      firstName: 'Grace',
      lastName: 'Hopper',
      timeJoined: Date.parse('2019-03-04T05:06:07Z'),
      loginMethods: [expect.objectContaining({ recipeId: 'emailpassword', email: GRACE.email, verified: true })],
    });
    const count = await dashboardApi('GET', '/users/count', sessionId);
    expect(count.json).toEqual({ status: 'OK', count: 2 });
  });

  it('finds a user by the search box tags', async () => {
    const tags = await dashboardApi('GET', '/search/tags', sessionId);
    expect(tags.json).toEqual({ status: 'OK', tags: ['email', 'phone', 'provider'] });
    const byEmail = await dashboardApi('GET', `/users?limit=10&email=${encodeURIComponent('grace.hopper')}`, sessionId);
    expect(byEmail.status).toBe(200);
    expect((byEmail.json as { users: { id: string }[] }).users.map((u) => u.id)).toEqual([GRACE.id]);
    const byDomain = await dashboardApi('GET', '/users?limit=10&email=example.org', sessionId);
    expect((byDomain.json as { users: { id: string }[] }).users.map((u) => u.id)).toEqual([ALAN.id]);
  });

  it('opens a user: details, metadata, roles, and the session of their sign-in with their old password', async () => {
    const browser = new Browser(server);
    const signedIn = await browser.signIn(GRACE.email, GRACE.password);
    expect(signedIn.json.status, JSON.stringify(signedIn.json)).toBe('OK');
    secrets.push(...(await browser.secrets()));

    const user = await dashboardApi('GET', `/user?userId=${encodeURIComponent(GRACE.id)}`, sessionId);
    expect(user.json).toMatchObject({
      status: 'OK',
      user: { id: GRACE.id, emails: [GRACE.email], firstName: 'Grace', lastName: 'Hopper' },
    });
    const metadata = await dashboardApi('GET', `/user/metadata?userId=${encodeURIComponent(GRACE.id)}`, sessionId);
    expect(metadata.json).toEqual({
      status: 'OK',
      data: { first_name: 'Grace', last_name: 'Hopper', plan: 'legacy-gold' },
    });
    const roles = await dashboardApi('GET', `/userroles/user/roles?userId=${encodeURIComponent(GRACE.id)}`, sessionId);
    expect(roles.json).toEqual({ status: 'OK', roles: ['editor'] });
    const sessions = await dashboardApi('GET', `/user/sessions?userId=${encodeURIComponent(GRACE.id)}`, sessionId);
    expect(sessions.json).toMatchObject({
      status: 'OK',
      sessions: [expect.objectContaining({ userId: GRACE.id, tenantId: 'public' })],
    });
    const missing = await dashboardApi('GET', '/user?userId=nobody', sessionId);
    expect(missing.json).toEqual({ status: 'NO_USER_FOUND_ERROR' });
  });

  it('shows the tenant page with the configuration the core answers', async () => {
    const tenants = await dashboardApi('GET', '/tenants', sessionId);
    expect(tenants.json).toMatchObject({ status: 'OK', tenants: [expect.objectContaining({ tenantId: 'public' })] });
    const tenant = await dashboardApi('GET', '/tenant', sessionId);
    expect(tenant.status).toBe(200);
    const info = (tenant.json as { status: string; tenant: { coreConfig: { key: string; value: unknown }[] } }).tenant;
    expect(tenant.json).toMatchObject({ status: 'OK', tenant: { tenantId: 'public', userCount: 2 } });
    const keys = new Map(info.coreConfig.map((field) => [field.key, field.value]));
    expect(keys.get('password_hashing_alg')).toBe('BCRYPT');
    expect(keys.get('api_keys')).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(JSON.stringify(info)).not.toContain(API_KEY);
  });

  it('serves the dashboard page itself (its script from the CDN), and ends the session at sign-out', async () => {
    const page = await fetch(`${server.url}/auth/dashboard`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('cdn.jsdelivr.net');

    const signedOut = await dashboardApi('POST', '/signout', sessionId);
    expect(signedOut.json).toEqual({ status: 'OK' });
    expect((await dashboardApi('GET', '/users?limit=10', sessionId)).status).toBe(401);
    const verified = await core('POST', `/appid-${APP_ID}/recipe/dashboard/session/verify`, { sessionId });
    expect(verified.json).toEqual({ status: 'INVALID_SESSION_ERROR' });
  });

  it('wrote no password, API key or session id to the runtime logs', () => {
    expectNoSecretInLogs(runtime!, secrets);
  });
});
