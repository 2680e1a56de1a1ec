/**
 * Email verification and password reset through a real application against `npm start`: the
 * Express backend of test/e2e/fixtures/sdk-app-server.ts (supertokens-node's EmailPassword, Session
 * and EmailVerification in mode OPTIONAL), reached only through its HTTP API by a cookie-jar browser
 * (test/e2e/sdk-app-helpers.ts). The links the SDK emails are read from the backend's outbox, as a
 * user would read them in their inbox. For a user who signed up in the app and for one imported with
 * a legacy bcrypt hash:
 *
 * - the session's `st-ev` claim is false, and a route that requires a verified email answers 403;
 *   the user asks for the verification email, opens its link, and the claim is true (the route
 *   answers 200); the link works once;
 * - "forgot password": the emailed link's token and a new password reset it; the old password is
 *   refused at `/auth/signin`, the new one signs in as the same user; the link works once.
 *
 * No token, password, hash or API key reaches the runtime's logs.
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
  startRuntime,
  stopRuntime,
  tag,
  tokenOf,
} from './sdk-app-helpers.js';

const API_KEY = `sdk-app-accounts-${randomBytes(12).toString('hex')}`;
const APP_ID = `sdkacc-${randomBytes(4).toString('hex')}`;
const password = (name: string) => `${name}-${randomBytes(6).toString('hex')}`;

let runtime: LocalProcess | undefined;
let server: AppServer;
const core = coreCaller(() => runtime!, API_KEY);
/** Every secret the tests handled: none may be in the runtime's logs. */
const secrets: string[] = [API_KEY];

beforeAll(async () => {
  runtime = await startRuntime(API_KEY);
  const app = await core('PUT', '/recipe/multitenancy/app/v2', { appId: APP_ID });
  expect(app.status, app.text).toBe(200);
  server = await AppServer.start(runtime, APP_ID, API_KEY, { recipes: 'emailpassword,session,emailverification' });
});

afterAll(async () => {
  server?.stop();
  await stopRuntime(runtime);
});

/** A user imported as a legacy system's export would give it: bcrypt hash, email not verified. */
async function importUser(email: string, plainPassword: string, isVerified: boolean): Promise<string> {
  const passwordHash = bcrypt.hashSync(plainPassword, 4);
  secrets.push(passwordHash);
  const imported = await core('POST', `/appid-${APP_ID}/bulk-import/import`, {
    externalUserId: `legacy-${tag()}`,
    loginMethods: [{ recipeId: 'emailpassword', email, passwordHash, hashingAlgorithm: 'BCRYPT', isVerified }],
  });
  expect(imported.status, imported.text).toBe(200);
  return imported.json.user.id as string;
}

/** The signed-in browser's email goes from unverified to verified through the emailed link. */
async function verifyEmailThroughTheApp(browser: Browser, email: string, userId: string): Promise<void> {
  const before = await browser.me();
  expect(before.status).toBe(200);
  expect(before.json.emailVerifiedClaim).toEqual({ v: false, t: expect.any(Number) });
  const gated = await browser.request('GET', '/verified');
  expect(gated.status).toBe(403);
  expect(gated.json).toEqual({
    message: 'invalid claim',
    claimValidationErrors: [
      { id: 'st-ev', reason: { message: 'wrong value', expectedValue: true, actualValue: false } },
    ],
  });
  expect((await browser.request('GET', '/auth/user/email/verify')).json).toEqual({ status: 'OK', isVerified: false });

  const sent = server.outbox().length;
  expect((await browser.askEmailVerification()).json).toEqual({ status: 'OK' });
  const mail = server.lastMessageTo(email);
  expect(server.outbox()).toHaveLength(sent + 1);
  expect(mail).toMatchObject({ channel: 'email', type: 'EMAIL_VERIFICATION', user: { id: userId, email } });
  const token = tokenOf(mail.emailVerifyLink);
  secrets.push(token);

  const verified = await browser.verifyEmail(token);
  expect(verified.status, JSON.stringify(verified.json)).toBe(200);
  expect(verified.json).toEqual({ status: 'OK' }); // the SDK's API hands no user to the browser
  const after = await browser.me();
  expect(after.json.emailVerifiedClaim).toEqual({ v: true, t: expect.any(Number) });
  expect((await browser.request('GET', '/verified')).status).toBe(200);
  expect((await browser.request('GET', '/auth/user/email/verify')).json).toEqual({ status: 'OK', isVerified: true });
  // The link works once; a verified email gets no new one.
  expect((await browser.verifyEmail(token)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
  expect((await browser.askEmailVerification()).json).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });
  expect(server.outbox()).toHaveLength(sent + 1);
  secrets.push(...(await browser.secrets()));
}

/** "Forgot password" from a browser with no session: the emailed link resets it. */
async function resetPasswordThroughTheApp(email: string, oldPassword: string, userId: string): Promise<string> {
  const newPassword = password('new');
  secrets.push(newPassword);
  const browser = new Browser(server);
  expect((await browser.askPasswordReset(email)).json).toEqual({ status: 'OK' });
  const mail = server.lastMessageTo(email);
  expect(mail).toMatchObject({ channel: 'email', type: 'PASSWORD_RESET', user: { id: userId, email } });
  const token = tokenOf(mail.passwordResetLink);
  secrets.push(token);

  expect((await browser.resetPassword(token, newPassword)).json).toEqual({ status: 'OK' });
  expect((await browser.signIn(email, oldPassword)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  const signIn = await browser.signIn(email, newPassword);
  expect(signIn.json.status).toBe('OK');
  expect(signIn.json.user.id).toBe(userId);
  expect((await browser.me()).json.userId).toBe(userId);
  // The link works once.
  expect((await browser.resetPassword(token, password('again'))).json).toEqual({
    status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR',
  });
  expect((await new Browser(server).signIn(email, newPassword)).json.status).toBe('OK');
  secrets.push(...(await browser.secrets()));
  return newPassword;
}

describe('email verification and password reset through the app', () => {
  it('a user who signed up verifies the email (st-ev false, then true) and resets the password', async () => {
    const email = `signed-up-${tag()}@example.com`;
    const first = password('first');
    secrets.push(first);
    const browser = new Browser(server);
    const signUp = await browser.signUp(email, first);
    expect(signUp.json.status).toBe('OK');
    const userId = signUp.json.user.id as string;
    await verifyEmailThroughTheApp(browser, email, userId);
    await resetPasswordThroughTheApp(email, first, userId);
  });

  it('a user imported with a bcrypt hash and an unverified email does the same', async () => {
    const email = `imported-${tag()}@example.com`;
    const legacy = password('legacy');
    secrets.push(legacy);
    const userId = await importUser(email, legacy, false);
    const browser = new Browser(server);
    const signIn = await browser.signIn(email, legacy);
    expect(signIn.json.status).toBe('OK');
    expect(signIn.json.user.id).toBe(userId);
    await verifyEmailThroughTheApp(browser, email, userId);
    await resetPasswordThroughTheApp(email, legacy, userId);
  });

  it('an imported user whose email was verified before is verified in the session at once', async () => {
    const email = `verified-${tag()}@example.com`;
    const legacy = password('legacy');
    secrets.push(legacy);
    await importUser(email, legacy, true);
    const browser = new Browser(server);
    expect((await browser.signIn(email, legacy)).json.status).toBe('OK');
    expect((await browser.me()).json.emailVerifiedClaim).toEqual({ v: true, t: expect.any(Number) });
    expect((await browser.request('GET', '/verified')).status).toBe(200);
    expect((await browser.askEmailVerification()).json).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });
  });

  it('a reset through the emailed link also verifies the email (the link reached its owner)', async () => {
    const email = `reset-verifies-${tag()}@example.com`;
    const legacy = password('legacy');
    secrets.push(legacy);
    const userId = await importUser(email, legacy, false);
    const newPassword = await resetPasswordThroughTheApp(email, legacy, userId);
    const browser = new Browser(server);
    expect((await browser.signIn(email, newPassword)).json.status).toBe('OK');
    expect((await browser.me()).json.emailVerifiedClaim).toEqual({ v: true, t: expect.any(Number) });
  });

  it('asking to reset an unknown email answers OK and sends nothing', async () => {
    const sent = server.outbox().length;
    expect((await new Browser(server).askPasswordReset(`nobody-${tag()}@example.com`)).json).toEqual({
      status: 'OK',
    });
    expect(server.outbox()).toHaveLength(sent);
  });

  it('wrote no reset or verification token, session token, password, hash or API key to any log line', () => {
    expect(secrets.length).toBeGreaterThan(15);
    expectNoSecretInLogs(runtime!, secrets);
  });
});
