/**
 * `npm start -- --in-memory` turns account linking, MFA and the OAuth2 provider on for every app, as the reference core
 * does on its in-memory database (docs/configuration.md, "In memory, every feature is on"): the unmodified
 * supertokens-node makes a primary user and a TOTP device for an app created with no coreConfig;
 * an app whose coreConfig turns the switches off, and every app of a runtime with persisted data,
 * get the reference's 402s.
 */
import { randomBytes } from 'node:crypto';
import supertokens from 'supertokens-node';
import AccountLinking from 'supertokens-node/recipe/accountlinking';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth';
import Session from 'supertokens-node/recipe/session';
import TOTP from 'supertokens-node/recipe/totp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalProcess } from '../helpers/local-process.js';
import { useRuntimes } from '../helpers/runtimes.js';
import { coreCaller, createApp, startRuntime, stopRuntime } from './migrate-helpers.js';

const API_KEY = `features-e2e-${randomBytes(12).toString('hex')}`;
const OPEN_APP = `open-${randomBytes(4).toString('hex')}`;
const CLOSED_APP = `closed-${randomBytes(4).toString('hex')}`;
const LINKING_OFF = 'Account linking feature is not enabled for this app. Please contact support to enable it.';
const OAUTH_OFF =
  'OAuth feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.';
const MFA_OFF =
  'MFA feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.';

let runtime: LocalProcess | undefined;
let dir: string | undefined;
const core = coreCaller(() => runtime!, API_KEY);

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'features-e2e-'));
  await createApp(core, OPEN_APP);
  await createApp(core, CLOSED_APP, {
    account_linking_enabled: false,
    mfa_enabled: 'false',
    oauth_provider_enabled: false,
  });
  supertokens.init({
    appInfo: { appName: 'features-e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: `${runtime.url}/appid-${OPEN_APP}`, apiKey: API_KEY },
    telemetry: false,
    recipeList: [
      EmailPassword.init(),
      Session.init(),
      AccountLinking.init(),
      MultiFactorAuth.init(),
      TOTP.init({ issuer: 'Auth Core' }),
    ],
  });
});

afterAll(() => stopRuntime(runtime, dir));

/** A new email-password user of `appId` through the core's API; its id. */
async function signUp(appId: string): Promise<string> {
  const reply = await core('POST', `/appid-${appId}/public/recipe/signup`, {
    email: `u-${randomBytes(4).toString('hex')}@example.com`,
    password: 'a-long-enough-password-1',
  });
  expect(reply.json?.status, reply.text).toBe('OK');
  return reply.json.user.id as string;
}

describe('in memory: the reference’s in-memory features', () => {
  it('says so in its banner', () => {
    expect(runtime!.stdout).toMatch(
      /Features:\s+account linking on, MFA on, OAuth2 provider on by default \(in memory: on unless an app's coreConfig turns them off\)/,
    );
  });

  it('an app created with no coreConfig links accounts and makes TOTP devices through the SDK', async () => {
    const created = await EmailPassword.signUp(
      'public',
      `p-${randomBytes(4).toString('hex')}@example.com`,
      'pw-123456789',
    );
    expect(created.status).toBe('OK');
    if (created.status !== 'OK') return;
    const primary = await AccountLinking.createPrimaryUser(created.recipeUserId);
    expect(primary.status).toBe('OK');
    if (primary.status !== 'OK') return;
    expect(primary.user.isPrimaryUser).toBe(true);

    const device = await TOTP.createDevice(created.user.id, undefined, 'phone');
    expect(device.status).toBe('OK');

    const client = await core('POST', `/appid-${OPEN_APP}/recipe/oauth/clients`, {});
    expect(client.status, client.text).toBe(200);
    expect(client.json?.status).toBe('OK');
  });

  it('an app whose coreConfig turns the switches off answers the reference’s 402s', async () => {
    const userId = await signUp(CLOSED_APP);
    const primary = await core('POST', `/appid-${CLOSED_APP}/recipe/accountlinking/user/primary`, {
      recipeUserId: userId,
    });
    expect(primary.status).toBe(402);
    expect(primary.text.trim()).toBe(LINKING_OFF);
    const device = await core('POST', `/appid-${CLOSED_APP}/recipe/totp/device`, {
      userId,
      deviceName: 'd',
      skew: 1,
      period: 30,
    });
    expect(device.status).toBe(402);
    expect(device.text.trim()).toBe(MFA_OFF);
    const client = await core('POST', `/appid-${CLOSED_APP}/recipe/oauth/clients`, {});
    expect(client.status).toBe(402);
    expect(client.text.trim()).toBe(OAUTH_OFF);
  });
});

describe('persisted data and MFA_ENABLED=false: the switches stay as configured', () => {
  const { start, dataDir } = useRuntimes();

  it('a persisted runtime keeps both off (402); an in-memory one honours MFA_ENABLED=false', async () => {
    const persisted = await start({ dataDir: dataDir(), env: { API_KEYS: undefined } });
    await persisted.waitUntilReady();
    expect(persisted.stdout).toMatch(/Features:\s+account linking off, MFA off, OAuth2 provider off by default\n/);
    const plain = async (runtimeOf: LocalProcess, method: string, path: string, body: unknown) => {
      const response = await runtimeOf.fetch(path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, text: (await response.text()).trim() };
    };
    const appId = `persisted-${randomBytes(4).toString('hex')}`;
    expect((await plain(persisted, 'PUT', '/recipe/multitenancy/app/v2', { appId })).status).toBe(200);
    const device = await plain(persisted, 'POST', `/appid-${appId}/recipe/totp/device`, {
      userId: 'someone',
      deviceName: 'd',
      skew: 1,
      period: 30,
    });
    expect(device).toEqual({ status: 402, text: MFA_OFF });
    const user = await plain(persisted, 'POST', `/appid-${appId}/public/recipe/signup`, {
      email: 'persisted@example.com',
      password: 'a-long-enough-password-1',
    });
    expect(user.status, user.text).toBe(200);
    const primary = await plain(persisted, 'POST', `/appid-${appId}/recipe/accountlinking/user/primary`, {
      recipeUserId: (JSON.parse(user.text) as { user: { id: string } }).user.id,
    });
    expect(primary).toEqual({ status: 402, text: LINKING_OFF });

    const noMfa = await start({ args: ['--in-memory'], env: { API_KEYS: undefined, MFA_ENABLED: 'false' } });
    await noMfa.waitUntilReady();
    expect(noMfa.stdout).toMatch(/Features:\s+account linking on, MFA off, OAuth2 provider on by default/);
    expect((await plain(noMfa, 'PUT', '/recipe/multitenancy/app/v2', { appId })).status).toBe(200);
    expect(
      await plain(noMfa, 'POST', `/appid-${appId}/recipe/totp/device`, {
        userId: 'x',
        deviceName: 'd',
        skew: 1,
        period: 30,
      }),
    ).toEqual({
      status: 402,
      text: MFA_OFF,
    });
  });
});
