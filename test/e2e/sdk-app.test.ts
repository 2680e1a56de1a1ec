/**
 * A real application against `npm start`: an Express backend with supertokens-node's own
 * middleware and error handler (test/e2e/fixtures/sdk-app-server.ts; EmailPassword, Session and
 * EmailVerification), one child process per app (the SDK is initialised once per process), and a
 * client with a cookie jar, as a browser would be (test/e2e/sdk-app-helpers.ts). It signs up, calls a route behind `verifySession()`, signs in users imported in bulk
 * (bcrypt) and one at a time (a legacy PBKDF2 hash), lets the access token expire and refreshes,
 * replays a rotated-out refresh token (the session is revoked), signs out, and shows that one
 * app's token is refused by another app's backend. No token, password or key reaches a log line.
 * Password reset and email verification: sdk-app-accounts.test.ts; third-party, passwordless and
 * account linking: sdk-app-recipes.test.ts.
 */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalProcess } from '../helpers/local-process.js';
import { legacyHashCases } from './legacy-hash-fixtures.js';
import { coreCaller } from './migrate-helpers.js';
import { AppServer, Browser, expectNoSecretInLogs, sleep, startRuntime, stopRuntime } from './sdk-app-helpers.js';

const API_KEY = `sdk-app-${randomBytes(12).toString('hex')}`;
/** Seconds: short, so the test can let an access token expire. */
const ACCESS_TOKEN_VALIDITY = 2;

let runtime: LocalProcess | undefined;
const servers: AppServer[] = [];
const core = coreCaller(() => runtime!, API_KEY);

/**
 * Loads what a sign-in and a protected route run, in the runtime (its handlers load on their first
 * request) and in the backend (the SDK fetches the app's keys on its first verification), with a
 * throw-away user. Cold, on a busy machine, that can take longer than the 2 s an access token lives
 * here; the tests then measure the flows, not the loading.
 */
async function warmUp(server: AppServer): Promise<void> {
  const browser = new Browser(server);
  const email = `warm-up-${randomBytes(3).toString('hex')}@example.com`;
  expect((await browser.signUp(email, 'Warm-up-pass-1')).json.status).toBe('OK');
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if ((await browser.me()).status === 200) return;
    expect((await browser.signIn(email, 'Warm-up-pass-1')).json.status).toBe('OK');
  }
  throw new Error('the protected route never answered 200');
}

async function newApp(): Promise<{ appId: string; server: AppServer }> {
  const appId = `sdkapp-${randomBytes(4).toString('hex')}`;
  const app = await core('PUT', '/recipe/multitenancy/app/v2', {
    appId,
    coreConfig: { access_token_validity: ACCESS_TOKEN_VALIDITY },
  });
  expect(app.status, app.text).toBe(200);
  const server = await AppServer.start(runtime!, appId, API_KEY, {
    recipes: 'emailpassword,session,emailverification',
  });
  servers.push(server);
  await warmUp(server);
  return { appId, server };
}

const collected: string[] = [];

let appA: { appId: string; server: AppServer };
let appB: { appId: string; server: AppServer };

beforeAll(async () => {
  runtime = await startRuntime(API_KEY);
  [appA, appB] = await Promise.all([newApp(), newApp()]);
});

afterAll(async () => {
  for (const server of servers) server.stop();
  await stopRuntime(runtime);
});

describe('an Express app on supertokens-node', () => {
  it('signs up, reaches a protected route with its cookies only, refreshes an expired token, detects a replayed refresh token, signs out', async () => {
    const browser = new Browser(appA.server);
    const email = `ada-${randomBytes(3).toString('hex')}@example.com`;
    const signUp = await browser.signUp(email, 'Sign-up-pass-1');
    expect(signUp.status, JSON.stringify(signUp.json)).toBe(200);
    expect(signUp.json.status).toBe('OK');
    expect(await browser.cookie('sAccessToken')).toEqual(expect.any(String));
    expect(browser.antiCsrf).toEqual(expect.any(String));

    const protectedRoute = await browser.request('GET', '/protected');
    expect(protectedRoute.status).toBe(200);
    expect(protectedRoute.json.userId).toBe(signUp.json.user.id);
    const { sessionHandle } = protectedRoute.json;

    const stranger = await new Browser(appA.server).request('GET', '/protected');
    expect(stranger.status).toBe(401);

    // The access token expires; the SDK asks for a refresh, the refresh gives new tokens.
    await sleep((ACCESS_TOKEN_VALIDITY + 1) * 1000);
    const expired = await browser.request('GET', '/protected');
    expect(expired.status).toBe(401);
    expect(expired.json).toEqual({ message: 'try refresh token' });
    const firstRefreshToken = await browser.cookie('sRefreshToken', '/auth/session/refresh');
    const firstAntiCsrf = browser.antiCsrf;
    collected.push(...(await browser.secrets()));
    const refreshed = await browser.request('POST', '/auth/session/refresh');
    expect(refreshed.status, JSON.stringify(refreshed.json)).toBe(200);
    expect(await browser.cookie('sRefreshToken', '/auth/session/refresh')).not.toBe(firstRefreshToken);
    // The new access token carries the parent's hash: its first use promotes the session in the core.
    const afterRefresh = await browser.request('GET', '/protected');
    expect(afterRefresh.status).toBe(200);
    expect(afterRefresh.json.sessionHandle).toBe(sessionHandle);
    collected.push(...(await browser.secrets()));

    // Someone replays the rotated-out refresh token: theft, the session is revoked.
    const thief = new Browser(appA.server);
    await thief.jar.setCookie(
      `sRefreshToken=${firstRefreshToken}; Path=/auth/session/refresh`,
      `${appA.server.url}/auth/session/refresh`,
    );
    // The anti-CSRF token that went with it (the refresh token carries it, and the core checks it first).
    thief.antiCsrf = firstAntiCsrf;
    const replay = await thief.request('POST', '/auth/session/refresh');
    expect(replay.status).toBe(401);
    expect(replay.json).toEqual({ message: 'token theft detected' });
    const revoked = await core('GET', `/appid-${appA.appId}/recipe/session?sessionHandle=${sessionHandle}`);
    expect(revoked.json).toEqual({ status: 'UNAUTHORISED', message: 'Session does not exist.' });
    await sleep((ACCESS_TOKEN_VALIDITY + 1) * 1000);
    const ownerRefresh = await browser.request('POST', '/auth/session/refresh');
    expect(ownerRefresh.status).toBe(401);

    // A new sign-in, then sign-out: the cookies are cleared and the session is gone.
    const again = await browser.signIn(email, 'Sign-up-pass-1');
    expect(again.json.status).toBe('OK');
    const handle = (await browser.request('GET', '/protected')).json.sessionHandle;
    const signOut = await browser.request('POST', '/auth/signout');
    expect(signOut.status, JSON.stringify(signOut.json)).toBe(200);
    expect(signOut.json).toEqual({ status: 'OK' });
    expect((await browser.request('GET', '/protected')).status).toBe(401);
    expect((await core('GET', `/appid-${appA.appId}/recipe/session?sessionHandle=${handle}`)).json.status).toBe(
      'UNAUTHORISED',
    );
  });

  it('signs in users imported in bulk (bcrypt) and one at a time (a legacy PBKDF2 hash)', async () => {
    const bulkEmail = `bulk-${randomBytes(3).toString('hex')}@example.com`;
    const staged = await core('POST', `/appid-${appA.appId}/bulk-import/users`, {
      users: [
        {
          loginMethods: [
            {
              recipeId: 'emailpassword',
              email: bulkEmail,
              passwordHash: bcrypt.hashSync('Bulk-pass-1', 4),
              hashingAlgorithm: 'BCRYPT',
            },
          ],
        },
      ],
    });
    expect(staged.status, staged.text).toBe(200);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const left = await core('GET', `/appid-${appA.appId}/bulk-import/users/count`);
      if (left.json.count === 0) break;
      if (Date.now() > deadline) throw new Error('the staged user was not imported');
      await sleep(250);
    }
    const legacy = legacyHashCases().find((c) => c.hashingAlgorithm === 'PBKDF2');
    if (!legacy) throw new Error('no PBKDF2 case');
    const legacyEmail = `legacy-${randomBytes(3).toString('hex')}@example.com`;
    const imported = await core('POST', `/appid-${appA.appId}/bulk-import/import`, {
      externalUserId: `legacy-${randomBytes(3).toString('hex')}`,
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: legacyEmail,
          passwordHash: legacy.passwordHash,
          hashingAlgorithm: 'PBKDF2',
        },
      ],
    });
    expect(imported.status, imported.text).toBe(200);

    for (const [email, password, id] of [
      [bulkEmail, 'Bulk-pass-1', undefined],
      [legacyEmail, legacy.password, imported.json.user.id as string],
    ] as const) {
      const browser = new Browser(appA.server);
      const wrong = await browser.signIn(email, 'not-the-password-1');
      expect(wrong.json.status).toBe('WRONG_CREDENTIALS_ERROR');
      const signIn = await browser.signIn(email, password);
      expect(signIn.json.status, email).toBe('OK');
      if (id) expect(signIn.json.user.id).toBe(id);
      const me = await browser.request('GET', '/protected');
      expect(me.status).toBe(200);
      expect(me.json.userId).toBe(signIn.json.user.id);
      collected.push(...(await browser.secrets()));
    }
  });

  it('refuses a token of app A at app B’s backend', async () => {
    const browser = new Browser(appA.server);
    const email = `two-${randomBytes(3).toString('hex')}@example.com`;
    expect((await browser.signUp(email, 'Two-apps-pass-1')).json.status).toBe('OK');
    expect((await browser.request('GET', '/protected')).status).toBe(200);
    const atB = new Browser(appB.server);
    atB.jar = browser.jar;
    atB.antiCsrf = browser.antiCsrf;
    const refused = await atB.request('GET', '/protected');
    expect(refused.status).toBe(401);
    const refreshAtB = await atB.request('POST', '/auth/session/refresh');
    expect(refreshAtB.status).toBe(401);
    // B's own users are unaffected.
    const own = new Browser(appB.server);
    expect((await own.signUp(email, 'Two-apps-pass-1')).json.status).toBe('OK');
    expect((await own.request('GET', '/protected')).status).toBe(200);
    collected.push(...(await browser.secrets()), ...(await own.secrets()));
  });

  it('wrote no token, anti-CSRF token, password, API key or private key to any log line', () => {
    expect(collected.length).toBeGreaterThan(5);
    const passwords = ['Warm-up-pass-1', 'Sign-up-pass-1', 'not-the-password-1', 'Bulk-pass-1', 'Two-apps-pass-1'];
    // (The PBKDF2 case's password, "test", is too short to look for; its hash is not.)
    const legacy = legacyHashCases().find((c) => c.hashingAlgorithm === 'PBKDF2')!;
    expectNoSecretInLogs(runtime!, [...collected, ...passwords, legacy.passwordHash, API_KEY]);
  });
});
