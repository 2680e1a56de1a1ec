/**
 * The login methods an Auth0 migration brings (its exports hold no second-factor secret, so no
 * TOTP device), each signed in through a real application against `npm start`: the Express
 * backend of test/e2e/fixtures/sdk-app-server.ts with supertokens-node's EmailPassword,
 * EmailVerification, ThirdParty (its built-in Google provider, pointed at a stand-in for Google's
 * discovery, token, key and user-info endpoints that the test serves), Passwordless (email or
 * phone, code and magic link, delivered to the backend's outbox), AccountLinking (automatic, once
 * the email is verified) and Session, reached only through its HTTP API by a cookie-jar browser
 * (test/e2e/sdk-app-helpers.ts).
 *
 * A small Auth0 export (NDJSON, with the password-hash export) is migrated with
 * `npx auth-core migrate`. Its Google-only user, email-passwordless user, SMS-passwordless user
 * and password + Google user each sign in as themselves and get a session: the protected route
 * answers with their Auth0 id, and nobody is created twice. Then the edge answers through the app:
 * wrong codes up to the app's attempt limit (`RESTART_FLOW_ERROR`), an expired code (an app with a
 * one-second code lifetime), and the refusals when a login's email belongs to another primary
 * user. No token, code, key or password reaches the runtime's logs.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, runCommand } from './migrate-helpers.js';
import {
  AppServer,
  Browser,
  expectNoSecretInLogs,
  FakeGoogle,
  type ProviderAccount,
  sleep,
  startRuntime,
  stopRuntime,
  tag,
} from './sdk-app-helpers.js';

const API_KEY = `sdk-app-recipes-${randomBytes(12).toString('hex')}`;
const APP_ID = `sdkrec-${randomBytes(4).toString('hex')}`;
/** An app whose passwordless codes live one second, for the expired-code answer. */
const SHORT_APP_ID = `sdkshort-${randomBytes(4).toString('hex')}`;
const RECIPES = 'emailpassword,session,emailverification,thirdparty,passwordless,accountlinking';
/** The app's `passwordless_max_code_input_attempts` (the default is 5). */
const MAX_ATTEMPTS = 3;

const T = tag();
/** The Auth0 users, as the export has them. */
const GINA = {
  id: 'google-oauth2|104000000000000000001',
  sub: '104000000000000000001',
  email: `gina.${T}@example.com`,
};
const PAT = { id: 'email|6600c0ffee00000000000001', email: `pat.${T}@example.com` };
const SAM = { id: 'sms|6600c0ffee00000000000002', phoneNumber: '+14155550187' };
const CY = {
  id: 'auth0|6600c0ffee0000000000000c',
  email: `cy.${T}@example.com`,
  password: `cy-${randomBytes(6).toString('hex')}`,
  googleSub: '104000000000000000003',
};

let runtime: LocalProcess | undefined;
let google: FakeGoogle | undefined;
let server: AppServer;
let shortServer: AppServer;
let dir: string | undefined;
const servers: AppServer[] = [];
const core = coreCaller(() => runtime!, API_KEY);
/** Every secret the tests handled: none may be in the runtime's logs. */
const secrets: string[] = [API_KEY, CY.password];

const userCount = async (appId = APP_ID) =>
  (await core('GET', `/appid-${appId}/users/count?includeAllTenants=true`)).json.count as number;
const coreUser = async (id: string) => (await core('GET', `/appid-${APP_ID}/user/id?userId=${id}`)).json.user;

/** Auth0's user export (NDJSON) and password-hash export, as `npx auth-core migrate --from auth0` reads them. */
function writeAuth0Export(into: string): { users: string; hashes: string } {
  const social = (provider: string, userId: string) => ({
    connection: provider,
    provider,
    user_id: userId,
    isSocial: true,
  });
  const users = [
    {
      user_id: GINA.id,
      email: GINA.email,
      email_verified: true,
      created_at: '2023-05-05T05:05:05.000Z',
      identities: [social('google-oauth2', GINA.sub)],
    },
    {
      user_id: PAT.id,
      email: PAT.email,
      email_verified: true,
      created_at: '2023-06-06T06:06:06.000Z',
      identities: [{ connection: 'email', provider: 'email', user_id: PAT.id.slice(6), isSocial: false }],
    },
    {
      user_id: SAM.id,
      phone_number: SAM.phoneNumber,
      created_at: '2023-07-07T07:07:07.000Z',
      identities: [{ connection: 'sms', provider: 'sms', user_id: SAM.id.slice(4), isSocial: false }],
    },
    {
      user_id: CY.id,
      email: CY.email,
      email_verified: true,
      created_at: '2020-02-02T02:02:02.000Z',
      identities: [
        {
          connection: 'Username-Password-Authentication',
          provider: 'auth0',
          user_id: CY.id.slice(6),
          isSocial: false,
        },
        social('google-oauth2', CY.googleSub),
      ],
    },
  ];
  const passwordHash = bcrypt.hashSync(CY.password, 4);
  secrets.push(passwordHash);
  const hashes = [
    {
      _id: { $oid: CY.id.slice(6) },
      email: CY.email,
      email_verified: true,
      passwordHash,
      connection: 'Username-Password-Authentication',
    },
  ];
  const files = { users: join(into, 'auth0-users.json'), hashes: join(into, 'auth0-hashes.json') };
  writeFileSync(files.users, `${users.map((u) => JSON.stringify(u)).join('\n')}\n`);
  writeFileSync(files.hashes, `${hashes.map((h) => JSON.stringify(h)).join('\n')}\n`);
  return files;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sdk-app-recipes-'));
  runtime = await startRuntime(API_KEY);
  google = await FakeGoogle.start();
  secrets.push(google.clientSecret);
  for (const [appId, coreConfig] of [
    [APP_ID, { account_linking_enabled: true, passwordless_max_code_input_attempts: MAX_ATTEMPTS }],
    [SHORT_APP_ID, { account_linking_enabled: true, passwordless_code_lifetime: 1000 }],
  ] as const) {
    const app = await core('PUT', '/recipe/multitenancy/app/v2', { appId, coreConfig });
    expect(app.status, app.text).toBe(200);
  }

  const files = writeAuth0Export(dir);
  const migrated = await runCommand(
    [
      'migrate',
      files.users,
      '--from',
      'auth0',
      '--hashes',
      files.hashes,
      '--app',
      APP_ID,
      '--report',
      join(dir, 'report.ndjson'),
    ],
    { AUTH_CORE_URL: runtime.url, AUTH_CORE_API_KEY: API_KEY },
  );
  expect(migrated.code, migrated.stderr).toBe(0);
  expect(await userCount()).toBe(4);

  const start = (appId: string) => AppServer.start(runtime!, appId, API_KEY, { recipes: RECIPES, env: google!.env });
  [server, shortServer] = await Promise.all([start(APP_ID), start(SHORT_APP_ID)]);
  servers.push(server, shortServer);
});

afterAll(async () => {
  for (const s of servers) s.stop();
  await google?.close();
  await stopRuntime(runtime);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A browser back from Google (the stand-in) as `account`: the app exchanges the code and signs in or up. */
async function withGoogle(browser: Browser, account: ProviderAccount) {
  return browser.signInWithGoogle(google!.codeFor(account));
}

/** Passwordless step 1 through the app; the code and link the backend sent. */
async function startPasswordless(browser: Browser, contact: { email: string } | { phoneNumber: string }) {
  const created = await browser.createCode(contact);
  expect(created.json, JSON.stringify(created.json)).toMatchObject({
    status: 'OK',
    deviceId: expect.any(String),
    preAuthSessionId: expect.any(String),
    flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK',
  });
  const message = browser.server.lastMessageTo('email' in contact ? contact.email : contact.phoneNumber);
  expect(message).toMatchObject({
    channel: 'email' in contact ? 'email' : 'sms',
    type: 'PASSWORDLESS_LOGIN',
    preAuthSessionId: created.json.preAuthSessionId,
    userInputCode: expect.stringMatching(/^\d{6}$/),
    urlWithLinkCode: expect.stringContaining(`preAuthSessionId=${created.json.preAuthSessionId}`),
  });
  const linkCode = new URL(message.urlWithLinkCode!).hash.slice(1);
  // The six-digit code is looked for as a JSON string: any logged field holding it would read so.
  secrets.push(created.json.deviceId, linkCode, `"${message.userInputCode}"`);
  return { created: created.json as { deviceId: string; preAuthSessionId: string }, message };
}

/** The protected route answers 200 with `userId`; the browser's tokens join the secrets. */
async function expectSessionOf(browser: Browser, userId: string) {
  const me = await browser.me();
  expect(me.status, JSON.stringify(me.json)).toBe(200);
  expect(me.json.userId).toBe(userId);
  secrets.push(...(await browser.secrets()));
  return me.json as { userId: string; recipeUserId: string; sessionHandle: string };
}

describe('users migrated from an Auth0 export sign in through the app', () => {
  it('the Google-only user signs in with Google as itself (thirdPartyId google, its Google sub)', async () => {
    const browser = new Browser(server);
    const signIn = await withGoogle(browser, { sub: GINA.sub, email: GINA.email, emailVerified: true });
    expect(signIn.status, JSON.stringify(signIn.json)).toBe(200);
    expect(signIn.json).toMatchObject({
      status: 'OK',
      createdNewRecipeUser: false,
      user: { id: GINA.id, emails: [GINA.email], thirdParty: [{ id: 'google', userId: GINA.sub }] },
    });
    // Verified and alone with its email: the SDK made it a primary user.
    expect(signIn.json.user.isPrimaryUser).toBe(true);
    expect(await expectSessionOf(browser, GINA.id)).toMatchObject({ recipeUserId: GINA.id });
    expect(await userCount()).toBe(4);
  });

  it('the email-passwordless user signs in with the code it was emailed', async () => {
    const browser = new Browser(server);
    const { created, message } = await startPasswordless(browser, { email: PAT.email });
    const consumed = await browser.consumeCode(created, message.userInputCode!);
    expect(consumed.status, JSON.stringify(consumed.json)).toBe(200);
    expect(consumed.json).toMatchObject({
      status: 'OK',
      createdNewRecipeUser: false,
      user: { id: PAT.id, emails: [PAT.email] },
    });
    await expectSessionOf(browser, PAT.id);
    expect(await userCount()).toBe(4);
  });

  it('the SMS-passwordless user signs in with the magic link it was texted', async () => {
    const browser = new Browser(server);
    const { message } = await startPasswordless(browser, { phoneNumber: SAM.phoneNumber });
    expect(message).toMatchObject({ channel: 'sms', phoneNumber: SAM.phoneNumber });
    const consumed = await browser.consumeLink(message.urlWithLinkCode!);
    expect(consumed.status, JSON.stringify(consumed.json)).toBe(200);
    expect(consumed.json).toMatchObject({
      status: 'OK',
      createdNewRecipeUser: false,
      user: { id: SAM.id, phoneNumbers: [SAM.phoneNumber] },
    });
    await expectSessionOf(browser, SAM.id);
    expect(await userCount()).toBe(4);
  });

  it('the password + Google user signs in with either and is the same primary user both times', async () => {
    const byPassword = new Browser(server);
    const signIn = await byPassword.signIn(CY.email, CY.password);
    expect(signIn.json).toMatchObject({ status: 'OK', user: { id: CY.id, isPrimaryUser: true } });
    expect(signIn.json.user.loginMethods.map((lm: { recipeId: string }) => lm.recipeId).sort()).toEqual([
      'emailpassword',
      'thirdparty',
    ]);
    expect(await expectSessionOf(byPassword, CY.id)).toMatchObject({ recipeUserId: CY.id });

    const byGoogle = new Browser(server);
    const viaGoogle = await withGoogle(byGoogle, { sub: CY.googleSub, email: CY.email, emailVerified: true });
    expect(viaGoogle.status, JSON.stringify(viaGoogle.json)).toBe(200);
    expect(viaGoogle.json).toMatchObject({ status: 'OK', createdNewRecipeUser: false, user: { id: CY.id } });
    const googleMethod = (viaGoogle.json.user.loginMethods as { recipeId: string; recipeUserId: string }[]).find(
      (lm) => lm.recipeId === 'thirdparty',
    );
    // The session is the primary user's; its recipe user is the Google login method.
    expect(await expectSessionOf(byGoogle, CY.id)).toMatchObject({ recipeUserId: googleMethod?.recipeUserId });
    expect(googleMethod?.recipeUserId).not.toBe(CY.id);
    expect(await userCount()).toBe(4);
  });

  it('a new Google login with the verified email of an imported user is linked to it automatically', async () => {
    const browser = new Browser(server);
    const sub = `10400000000000${randomBytes(3).readUIntBE(0, 3)}`;
    const signUp = await withGoogle(browser, { sub, email: CY.email, emailVerified: true });
    expect(signUp.json).toMatchObject({ status: 'OK', createdNewRecipeUser: true, user: { id: CY.id } });
    expect(signUp.json.user.thirdParty).toContainEqual({ id: 'google', userId: sub });
    await expectSessionOf(browser, CY.id);
    expect(await userCount()).toBe(4);
  });
});

describe('the edge answers through the app', () => {
  it(`wrong codes count up to the app's limit (${MAX_ATTEMPTS}), then the flow restarts`, async () => {
    const browser = new Browser(server);
    const { created, message } = await startPasswordless(browser, { email: PAT.email });
    const wrong = message.userInputCode === '000000' ? '111111' : '000000';
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt += 1) {
      expect((await browser.consumeCode(created, wrong)).json).toEqual({
        status: 'INCORRECT_USER_INPUT_CODE_ERROR',
        failedCodeInputAttemptCount: attempt,
        maximumCodeInputAttempts: MAX_ATTEMPTS,
      });
    }
    expect((await browser.consumeCode(created, wrong)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    // The device is gone: the right code and the link no longer sign in.
    expect((await browser.consumeCode(created, message.userInputCode!)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await browser.consumeLink(message.urlWithLinkCode!)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await browser.me()).status).toBe(401);
    // A new flow works.
    const again = await startPasswordless(browser, { email: PAT.email });
    expect((await browser.consumeCode(again.created, again.message.userInputCode!)).json.status).toBe('OK');
    await expectSessionOf(browser, PAT.id);
  });

  it('an expired code is refused (an app whose codes live one second)', async () => {
    const browser = new Browser(shortServer);
    const email = `late-${tag()}@example.com`;
    const { created, message } = await startPasswordless(browser, { email });
    expect(message.codeLifetime).toBe(1000);
    await sleep(1500);
    expect((await browser.consumeCode(created, message.userInputCode!)).json).toEqual({
      status: 'EXPIRED_USER_INPUT_CODE_ERROR',
      failedCodeInputAttemptCount: 1,
      maximumCodeInputAttempts: 5,
    });
    expect((await browser.consumeLink(message.urlWithLinkCode!)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await browser.me()).status).toBe(401);
    expect(await userCount(SHORT_APP_ID)).toBe(0);
  });

  it('a login whose email belongs to another primary user is not linked to it, nor created', async () => {
    // Gina is a primary user (her Google sign-in made her one).
    const gina = await withGoogle(new Browser(server), { sub: GINA.sub, email: GINA.email, emailVerified: true });
    expect(gina.json.user).toMatchObject({ id: GINA.id, isPrimaryUser: true });
    const before = await userCount();

    // A password sign-up with her email: its email is unverified, so it may not join her account.
    const signUp = await new Browser(server).signUp(GINA.email, `intruder-${randomBytes(6).toString('hex')}`);
    expect(signUp.json).toEqual({
      status: 'SIGN_UP_NOT_ALLOWED',
      reason:
        'Cannot sign up due to security reasons. Please try logging in, use a different login method or contact support. (ERR_CODE_007)',
    });
    // Another Google account claiming her email without having verified it.
    const unverified = await withGoogle(new Browser(server), {
      sub: '104000000000000000099',
      email: GINA.email,
      emailVerified: false,
    });
    expect(unverified.json).toEqual({
      status: 'SIGN_IN_UP_NOT_ALLOWED',
      reason:
        'Cannot sign in / up due to security reasons. Please try a different login method or contact support. (ERR_CODE_006)',
    });
    // Cy's Google account now reports Gina's email: Cy is another primary user, the email cannot move to it.
    const moved = new Browser(server);
    const emailChange = await withGoogle(moved, { sub: CY.googleSub, email: GINA.email, emailVerified: true });
    expect(emailChange.json).toEqual({
      status: 'SIGN_IN_UP_NOT_ALLOWED',
      reason:
        'Cannot sign in / up because new email cannot be applied to existing account. Please contact support. (ERR_CODE_005)',
    });
    expect((await moved.me()).status).toBe(401);
    expect((await coreUser(CY.id)).emails).toEqual([CY.email]);
    expect((await coreUser(GINA.id)).loginMethods).toHaveLength(1);
    expect(await userCount()).toBe(before);
  });
});

describe('credentials', () => {
  it("wrote no provider token or secret, passwordless link code or device id, session token, password, hash or API key to the runtime's logs", () => {
    expect(google!.refused).toEqual([]);
    expect(google!.issued.length).toBeGreaterThanOrEqual(8);
    expectNoSecretInLogs(runtime!, [...secrets, ...google!.issued]);
  });
});
