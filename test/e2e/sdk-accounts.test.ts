import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import bcrypt from 'bcryptjs';
import supertokens, { RecipeUserId } from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import EmailVerification from 'supertokens-node/recipe/emailverification';
import Session from 'supertokens-node/recipe/session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, stopRuntime } from './migrate-helpers.js';

/**
 * Password reset, account updates and email verification of imported users through the
 * unmodified official backend SDK (supertokens-node with EmailPassword, Session and
 * EmailVerification), against `npm start` over HTTP with an API key. Users are imported with plain
 * HTTP (the SDK has no import API); every other call goes through the SDK. The runtime's output
 * (at debug level) must hold no token, password or hash.
 */

const API_KEY = `accounts-e2e-${randomBytes(12).toString('hex')}`;
const APP_ID = `acc-${randomBytes(4).toString('hex')}`;
const OLD_PASSWORD = `old-${randomBytes(6).toString('hex')}`;
const NEW_PASSWORD = `new-${randomBytes(6).toString('hex')}`;
const OTHER_PASSWORD = `other-${randomBytes(6).toString('hex')}`;
const BCRYPT_HASH = bcrypt.hashSync(OLD_PASSWORD, 4);
/** Django's PBKDF2 (a legacy hash the core upgrades at sign-in; a reset replaces it directly). */
const DJANGO = {
  hash: 'pbkdf2_sha256$10000$kjVJaVz6qsnJ$5yPHw3rwJGECpUf70daLGhOrQ5+AMxIJdz1c3bqK1Rs=',
  password: 'not a password',
};
/**
 * The SDK's own API layer (what its `/auth/...` routes run), reached through its recipe instances:
 * the answers it reads from the core must carry it through, without a web server around it.
 */
const sdkRequire = createRequire(import.meta.url);
type RecipeModule = { default: { getInstanceOrThrowError(): any } };
const emailPasswordRecipe = () =>
  (
    sdkRequire('supertokens-node/lib/build/recipe/emailpassword/recipe') as RecipeModule
  ).default.getInstanceOrThrowError();
const emailVerificationRecipe = () =>
  (
    sdkRequire('supertokens-node/lib/build/recipe/emailverification/recipe') as RecipeModule
  ).default.getInstanceOrThrowError();

const SECRETS: string[] = [API_KEY, OLD_PASSWORD, NEW_PASSWORD, OTHER_PASSWORD, BCRYPT_HASH, DJANGO.hash];

let runtime: LocalProcess | undefined;
const call = coreCaller(() => runtime!, API_KEY);
const core = (method: string, path: string, body?: unknown) => call(method, `/appid-${APP_ID}${path}`, body);

async function importUser(body: unknown): Promise<string> {
  const res = await core('POST', '/bulk-import/import', body);
  expect(res.status, res.text).toBe(200);
  return (res.json as { user: { id: string } }).user.id;
}

const ep = (email: string, extra: Record<string, unknown> = {}, method: Record<string, unknown> = {}) => ({
  ...extra,
  loginMethods: [
    { recipeId: 'emailpassword', email, passwordHash: BCRYPT_HASH, hashingAlgorithm: 'BCRYPT', ...method },
  ],
});

beforeAll(async () => {
  runtime = await LocalProcess.start({ args: ['--in-memory'], env: { API_KEYS: API_KEY, LOG_LEVEL: 'debug' } });
  await runtime.waitUntilReady();
  const app = await call('PUT', '/recipe/multitenancy/app/v2', { appId: APP_ID });
  expect(app.status, app.text).toBe(200);
  supertokens.init({
    appInfo: { appName: 'accounts-e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: `${runtime.url}/appid-${APP_ID}`, apiKey: API_KEY },
    telemetry: false,
    recipeList: [EmailPassword.init(), Session.init(), EmailVerification.init({ mode: 'OPTIONAL' })],
  });
});

afterAll(() => stopRuntime(runtime, undefined));

describe('password reset of imported users', () => {
  it('createResetPasswordToken + consumePasswordResetToken + updateEmailOrPassword: the old password is refused, the new one accepted', async () => {
    const id = await importUser(ep('Reset.Me@Example.com', { externalUserId: 'acc-legacy-1' }));
    expect(id).toBe('acc-legacy-1');
    expect((await EmailPassword.signIn('public', 'reset.me@example.com', OLD_PASSWORD)).status).toBe('OK');
    const created = await EmailPassword.createResetPasswordToken('public', id, 'reset.me@example.com');
    expect(created.status).toBe('OK');
    if (created.status !== 'OK') return;
    SECRETS.push(created.token);
    expect(created.token).toMatch(/^[A-Za-z0-9]{128}$/);
    const consumed = await EmailPassword.consumePasswordResetToken('public', created.token);
    expect(consumed).toEqual({ status: 'OK', userId: 'acc-legacy-1', email: 'reset.me@example.com' });
    if (consumed.status !== 'OK') return;
    const updated = await EmailPassword.updateEmailOrPassword({
      recipeUserId: new RecipeUserId(consumed.userId),
      password: NEW_PASSWORD,
    });
    expect(updated).toEqual({ status: 'OK' });
    expect((await EmailPassword.signIn('public', 'reset.me@example.com', OLD_PASSWORD)).status).toBe(
      'WRONG_CREDENTIALS_ERROR',
    );
    const signedIn = await EmailPassword.signIn('public', 'reset.me@example.com', NEW_PASSWORD);
    expect(signedIn.status).toBe('OK');
    if (signedIn.status === 'OK') expect(signedIn.user.id).toBe('acc-legacy-1');
    // Single use.
    expect(await EmailPassword.consumePasswordResetToken('public', created.token)).toEqual({
      status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR',
    });
  });

  it('resetPasswordUsingToken replaces a legacy hash', async () => {
    const id = await importUser({
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'django@example.com',
          passwordHash: DJANGO.hash,
          hashingAlgorithm: 'PBKDF2',
        },
      ],
    });
    const created = await EmailPassword.createResetPasswordToken('public', id, 'django@example.com');
    if (created.status !== 'OK') throw new Error(created.status);
    SECRETS.push(created.token);
    expect(await EmailPassword.resetPasswordUsingToken('public', created.token, OTHER_PASSWORD)).toEqual({
      status: 'OK',
    });
    expect((await EmailPassword.signIn('public', 'django@example.com', DJANGO.password)).status).toBe(
      'WRONG_CREDENTIALS_ERROR',
    );
    expect((await EmailPassword.signIn('public', 'django@example.com', OTHER_PASSWORD)).status).toBe('OK');
    expect(await EmailPassword.resetPasswordUsingToken('public', created.token, OTHER_PASSWORD)).toEqual({
      status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR',
    });
  });

  it('answers UNKNOWN_USER_ID_ERROR for an unknown user', async () => {
    expect(await EmailPassword.createResetPasswordToken('public', 'no-such-user', 'x@example.com')).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
  });
});

describe('account updates', () => {
  it('updateEmailOrPassword changes the email; a taken email and an unknown user get their statuses', async () => {
    const id = await importUser(ep('move.from@example.com', {}, { isVerified: true }));
    await importUser(ep('taken@example.com'));
    const moved = await EmailPassword.updateEmailOrPassword({
      recipeUserId: new RecipeUserId(id),
      email: 'move.to@example.com',
    });
    expect(moved).toEqual({ status: 'OK' });
    const signedIn = await EmailPassword.signIn('public', 'move.to@example.com', OLD_PASSWORD);
    expect(signedIn.status).toBe('OK');
    if (signedIn.status === 'OK') {
      expect(signedIn.user.emails).toEqual(['move.to@example.com']);
      // The new email was never verified for this user; the old one stays verified.
      expect(signedIn.user.loginMethods[0]?.verified).toBe(false);
    }
    expect(await EmailVerification.isEmailVerified(new RecipeUserId(id), 'move.from@example.com')).toBe(true);
    expect((await EmailPassword.signIn('public', 'move.from@example.com', OLD_PASSWORD)).status).toBe(
      'WRONG_CREDENTIALS_ERROR',
    );
    expect(
      await EmailPassword.updateEmailOrPassword({ recipeUserId: new RecipeUserId(id), email: 'taken@example.com' }),
    ).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect(
      await EmailPassword.updateEmailOrPassword({ recipeUserId: new RecipeUserId('nobody'), email: 'x@example.com' }),
    ).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });
});

describe('email verification of imported users', () => {
  it('create, verify, is-verified, revoke and unverify, agreeing with the user the core returns', async () => {
    const id = await importUser(ep('verify.me@example.com', { externalUserId: 'acc-legacy-2' }));
    const recipeUserId = new RecipeUserId(id);
    expect(await EmailVerification.isEmailVerified(recipeUserId)).toBe(false);
    const created = await EmailVerification.createEmailVerificationToken('public', recipeUserId);
    expect(created.status).toBe('OK');
    if (created.status !== 'OK') return;
    SECRETS.push(created.token);
    const verified = await EmailVerification.verifyEmailUsingToken('public', created.token);
    expect(verified.status).toBe('OK');
    if (verified.status === 'OK') {
      expect(verified.user.recipeUserId.getAsString()).toBe('acc-legacy-2');
      expect(verified.user.email).toBe('verify.me@example.com');
    }
    expect(await EmailVerification.isEmailVerified(recipeUserId)).toBe(true);
    expect((await supertokens.getUser(id))?.loginMethods[0]?.verified).toBe(true);
    expect(await EmailVerification.createEmailVerificationToken('public', recipeUserId)).toEqual({
      status: 'EMAIL_ALREADY_VERIFIED_ERROR',
    });
    expect(await EmailVerification.verifyEmailUsingToken('public', created.token)).toEqual({
      status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR',
    });

    expect(await EmailVerification.unverifyEmail(recipeUserId)).toEqual({ status: 'OK' });
    expect(await EmailVerification.isEmailVerified(recipeUserId)).toBe(false);
    expect((await supertokens.getUser(id))?.loginMethods[0]?.verified).toBe(false);

    const pending = await EmailVerification.createEmailVerificationToken('public', recipeUserId);
    if (pending.status !== 'OK') throw new Error(pending.status);
    SECRETS.push(pending.token);
    expect(await EmailVerification.revokeEmailVerificationTokens('public', recipeUserId)).toEqual({ status: 'OK' });
    expect(await EmailVerification.verifyEmailUsingToken('public', pending.token)).toEqual({
      status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR',
    });
    expect(await EmailVerification.isEmailVerified(recipeUserId)).toBe(false);
  });

  it("reports an imported user's isVerified", async () => {
    const yes = await importUser(ep('imported.verified@example.com', {}, { isVerified: true }));
    const no = await importUser(ep('imported.unverified@example.com', {}, { isVerified: false }));
    expect(await EmailVerification.isEmailVerified(new RecipeUserId(yes))).toBe(true);
    expect(await EmailVerification.isEmailVerified(new RecipeUserId(no))).toBe(false);
    const signedIn = await EmailPassword.signIn('public', 'imported.verified@example.com', OLD_PASSWORD);
    expect(signedIn.status === 'OK' && signedIn.user.loginMethods[0]?.verified).toBe(true);
  });
});

describe("the SDK's API layer", () => {
  it('passwordResetPOST sets the password, marks the email verified and answers the user', async () => {
    const id = await importUser(ep('api.reset@example.com', { externalUserId: 'acc-legacy-3' }));
    const created = await EmailPassword.createResetPasswordToken('public', id, 'api.reset@example.com');
    if (created.status !== 'OK') throw new Error(created.status);
    SECRETS.push(created.token);
    const recipe = emailPasswordRecipe();
    const answer = await recipe.apiImpl.passwordResetPOST({
      formFields: [{ id: 'password', value: NEW_PASSWORD }],
      token: created.token,
      tenantId: 'public',
      options: { recipeImplementation: recipe.recipeInterfaceImpl },
      userContext: {},
    });
    expect(answer.status).toBe('OK');
    expect(answer.email).toBe('api.reset@example.com');
    expect(answer.user.id).toBe('acc-legacy-3');
    // Using the reset link proves the email: the SDK verifies it through the core.
    expect(answer.user.loginMethods[0].verified).toBe(true);
    expect((await EmailPassword.signIn('public', 'api.reset@example.com', NEW_PASSWORD)).status).toBe('OK');
    const again = await recipe.apiImpl.passwordResetPOST({
      formFields: [{ id: 'password', value: OTHER_PASSWORD }],
      token: created.token,
      tenantId: 'public',
      options: { recipeImplementation: recipe.recipeInterfaceImpl },
      userContext: {},
    });
    expect(again).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
  });

  it('verifyEmailPOST verifies the email of the token', async () => {
    const id = await importUser(ep('api.verify@example.com', { externalUserId: 'acc-legacy-4' }));
    const created = await EmailVerification.createEmailVerificationToken('public', new RecipeUserId(id));
    if (created.status !== 'OK') throw new Error(created.status);
    SECRETS.push(created.token);
    const recipe = emailVerificationRecipe();
    const answer = await recipe.apiImpl.verifyEmailPOST({
      token: created.token,
      tenantId: 'public',
      session: undefined,
      options: { recipeImplementation: recipe.recipeInterfaceImpl },
      userContext: {},
    });
    expect(answer.status).toBe('OK');
    expect(answer.user.recipeUserId.getAsString()).toBe('acc-legacy-4');
    expect(answer.user.email).toBe('api.verify@example.com');
    expect(await EmailVerification.isEmailVerified(new RecipeUserId(id))).toBe(true);
  });
});

describe('the runtime output', () => {
  it('holds no token, password or hash', () => {
    const output = `${runtime!.stdout}\n${runtime!.stderr}`;
    expect(output).toContain('"route":"email-verify"');
    for (const secret of SECRETS) expect(output.includes(secret), 'a credential in the runtime output').toBe(false);
  });
});
