/**
 * TOTP and MFA through the unmodified supertokens-node (`EmailPassword`, `Session`,
 * `MultiFactorAuth`, `TOTP`) against `npm start` over HTTP (docs/totp-and-mfa.md): a Clerk user
 * with a TOTP device, migrated with `npx auth-core migrate`, signs in with its password and
 * completes the second factor with a code from its Clerk secret; a new user creates and verifies a
 * device; wrong codes reach the limit. MultiFactorAuth needs no core route beyond these (tenant,
 * user, metadata, session and TOTP device routes), which the session's MFA claim shows.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { base32nopad } from '@scure/base';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth';
import Session from 'supertokens-node/recipe/session';
import TOTP from 'supertokens-node/recipe/totp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clerkTotpExport, totpCode } from '../fixtures/migrate/second-factors.js';
import type { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, createApp, expectNoCredential, runCommand, startRuntime, stopRuntime } from './migrate-helpers.js';

const API_KEY = `totp-e2e-${randomBytes(12).toString('hex')}`;
const APP_ID = `totp-${randomBytes(4).toString('hex')}`;
const TAG = randomBytes(3).toString('hex');

let runtime: LocalProcess | undefined;
let dir: string | undefined;
let exported: ReturnType<typeof clerkTotpExport>;
const core = coreCaller(() => runtime!, API_KEY);

/** The code of a base32 secret `offset` 30-second steps from now. */
const codeOf = (secret: string, offset = 0) => totpCode(base32nopad.decode(secret), Date.now() / 1000 + offset * 30);

/** A 6-digit code that is none of the secret's codes near now. */
function wrongCodeOf(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2].map((o) => codeOf(secret, o)));
  for (let n = 0; ; n++) if (!near.has(String(n).padStart(6, '0'))) return String(n).padStart(6, '0');
}

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'totp-e2e-'));
  await createApp(core, APP_ID, { mfa_enabled: true });

  // Clerk's dashboard CSV with a user who has a TOTP secret, migrated by the command.
  exported = clerkTotpExport(dir, TAG);
  const report = join(dir, 'report.ndjson');
  const migrated = await runCommand(
    ['migrate', exported.file, '--from', 'clerk', '--app', APP_ID, '--report', report],
    {
      AUTH_CORE_URL: runtime.url,
      AUTH_CORE_API_KEY: API_KEY,
    },
  );
  expect(migrated.code, migrated.stderr).toBe(0);
  expectNoCredential(migrated, [report], [...exported.secrets, API_KEY], /\$2[abxy]\$\d\d\$/);
  expect(readFileSync(report, 'utf8')).toBe('');

  supertokens.init({
    appInfo: { appName: 'totp-e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: `${runtime.url}/appid-${APP_ID}`, apiKey: API_KEY },
    telemetry: false,
    recipeList: [EmailPassword.init(), Session.init(), MultiFactorAuth.init(), TOTP.init({ issuer: 'Auth Core' })],
  });
});

afterAll(() => stopRuntime(runtime, dir));

describe('TOTP and MFA through supertokens-node', () => {
  it('the migrated Clerk user signs in with its password and completes TOTP with a code from its Clerk secret', async () => {
    const { totpUser, secret } = exported;
    const signIn = await EmailPassword.signIn('public', totpUser.email, totpUser.password);
    expect(signIn.status).toBe('OK');
    if (signIn.status !== 'OK') return;
    expect(signIn.user.id).toBe(totpUser.id);

    expect(await TOTP.listDevices(totpUser.id)).toEqual({
      status: 'OK',
      devices: [{ name: 'clerk', period: 30, skew: 1, verified: true }],
    });
    expect(await MultiFactorAuth.getFactorsSetupForUser(totpUser.id)).toEqual(['emailpassword', 'totp']);

    // The user's session must complete TOTP once the user requires it.
    await MultiFactorAuth.addToRequiredSecondaryFactorsForUser(totpUser.id, 'totp');
    const session = await Session.createNewSessionWithoutRequestResponse('public', signIn.recipeUserId);
    await session.fetchAndSetClaim(MultiFactorAuth.MultiFactorAuthClaim);
    expect(session.getAccessTokenPayload()['st-mfa']).toMatchObject({ v: false });

    expect(await TOTP.verifyTOTP('public', totpUser.id, codeOf(secret))).toEqual({ status: 'OK' });
    await MultiFactorAuth.markFactorAsCompleteInSession(session, 'totp');
    expect(session.getAccessTokenPayload()['st-mfa']).toMatchObject({ c: { totp: expect.any(Number) }, v: true });
    // The session the core verifies carries the completed factor.
    const verified = await Session.getSessionWithoutRequestResponse(session.getAccessToken());
    expect(verified.getAccessTokenPayload()['st-mfa']).toMatchObject({ v: true });
  });

  it('a new user creates a device and verifies it, then verifies codes of it', async () => {
    const signUp = await EmailPassword.signUp('public', `new.${TAG}@example.com`, 'new-user-password-1');
    expect(signUp.status).toBe('OK');
    if (signUp.status !== 'OK') return;
    const userId = signUp.user.id;

    const created = await TOTP.createDevice(userId);
    expect(created.status).toBe('OK');
    if (created.status !== 'OK') return;
    expect(created.deviceName).toBe('TOTP Device 0');
    expect(created.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(created.qrCodeString).toBe(
      `otpauth://totp/Auth%20Core:new.${TAG}@example.com?secret=${created.secret}&issuer=Auth%20Core&digits=6&period=30`,
    );
    expect(await MultiFactorAuth.getFactorsSetupForUser(userId)).toEqual(['emailpassword']);

    // Two codes that stay within the device's window even if a 30-second step ends meanwhile.
    const step = Math.floor(Date.now() / 30_000);
    const key = base32nopad.decode(created.secret);
    const [first, second] = [step, step + 1].map((s) => totpCode(key, s * 30));
    expect(await TOTP.verifyDevice('public', userId, created.deviceName, first as string)).toEqual({
      status: 'OK',
      wasAlreadyVerified: false,
    });
    expect(await MultiFactorAuth.getFactorsSetupForUser(userId)).toEqual(['emailpassword', 'totp']);
    expect(await TOTP.verifyTOTP('public', userId, first as string)).toMatchObject({ status: 'INVALID_TOTP_ERROR' });
    expect(await TOTP.verifyTOTP('public', userId, second as string)).toEqual({ status: 'OK' });

    expect(await TOTP.updateDevice(userId, created.deviceName, 'phone')).toEqual({ status: 'OK' });
    expect(await TOTP.listDevices(userId)).toEqual({
      status: 'OK',
      devices: [{ name: 'phone', period: 30, skew: 1, verified: true }],
    });
    expect(await TOTP.createDevice(userId, undefined, 'phone')).toEqual({ status: 'DEVICE_ALREADY_EXISTS_ERROR' });
    expect(await TOTP.createDevice('no-such-user')).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect(await TOTP.removeDevice(userId, 'phone')).toEqual({ status: 'OK', didDeviceExist: true });
    expect(await TOTP.verifyTOTP('public', userId, codeOf(created.secret))).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
  });

  it('wrong codes reach the limit: LIMIT_REACHED_ERROR with retryAfterMs, even for a right code', async () => {
    const { plainUser } = exported;
    const created = await TOTP.createDevice(plainUser.id, undefined, 'work');
    expect(created.status).toBe('OK');
    if (created.status !== 'OK') return;
    await TOTP.verifyDevice('public', plainUser.id, 'work', codeOf(created.secret));
    const wrong = wrongCodeOf(created.secret);
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect(await TOTP.verifyTOTP('public', plainUser.id, wrong)).toEqual({
        status: 'INVALID_TOTP_ERROR',
        currentNumberOfFailedAttempts: attempt,
        maxNumberOfFailedAttempts: 5,
      });
    }
    const limited = await TOTP.verifyTOTP('public', plainUser.id, codeOf(created.secret, 1));
    expect(limited).toMatchObject({
      status: 'LIMIT_REACHED_ERROR',
      currentNumberOfFailedAttempts: 5,
      maxNumberOfFailedAttempts: 5,
    });
    if (limited.status !== 'LIMIT_REACHED_ERROR') return;
    expect(limited.retryAfterMs).toBeGreaterThan(0);
    expect(limited.retryAfterMs).toBeLessThanOrEqual(900_000);
    expect(await TOTP.verifyDevice('public', plainUser.id, 'work', wrong)).toEqual({
      status: 'OK',
      wasAlreadyVerified: true,
    });
  });

  it('a code used in one tenant is refused in another, and a lock-out holds in every tenant of the app', async () => {
    const tenant = await core('PUT', `/appid-${APP_ID}/recipe/multitenancy/tenant/v2`, { tenantId: 't1' });
    expect(tenant.status, tenant.text).toBe(200);
    const signUp = await EmailPassword.signUp('public', `tenants.${TAG}@example.com`, 'tenants-user-password-1');
    expect(signUp.status).toBe('OK');
    if (signUp.status !== 'OK') return;
    const userId = signUp.user.id;
    const created = await TOTP.createDevice(userId);
    expect(created.status).toBe('OK');
    if (created.status !== 'OK') return;
    const step = Math.floor(Date.now() / 30_000);
    const key = base32nopad.decode(created.secret);
    const [first, second] = [step, step + 1].map((s) => totpCode(key, s * 30) as string);
    expect(await TOTP.verifyDevice('public', userId, created.deviceName, first as string)).toMatchObject({
      status: 'OK',
    });

    // Used in public: refused in t1 (the reference would accept it there again).
    expect(await TOTP.verifyTOTP('public', userId, second as string)).toEqual({ status: 'OK' });
    expect(await TOTP.verifyTOTP('t1', userId, second as string)).toEqual({
      status: 'INVALID_TOTP_ERROR',
      currentNumberOfFailedAttempts: 1,
      maxNumberOfFailedAttempts: 5,
    });

    // Four more wrong codes in public: the five failures (one made in t1) lock the user out in both.
    const wrong = wrongCodeOf(created.secret);
    for (let attempt = 2; attempt <= 5; attempt++) {
      expect(await TOTP.verifyTOTP('public', userId, wrong)).toMatchObject({
        status: 'INVALID_TOTP_ERROR',
        currentNumberOfFailedAttempts: attempt,
      });
    }
    for (const tenantId of ['public', 't1']) {
      expect(await TOTP.verifyTOTP(tenantId, userId, codeOf(created.secret, 1)), tenantId).toMatchObject({
        status: 'LIMIT_REACHED_ERROR',
        currentNumberOfFailedAttempts: 5,
        maxNumberOfFailedAttempts: 5,
      });
    }
  });

  it('no secret reaches the runtime logs', () => {
    for (const secret of exported.secrets) {
      expect(runtime!.stdout).not.toContain(secret);
      expect(runtime!.stderr).not.toContain(secret);
    }
  });
});
