import { randomBytes } from 'node:crypto';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Multitenancy from 'supertokens-node/recipe/multitenancy';
import Session from 'supertokens-node/recipe/session';
import UserMetadata from 'supertokens-node/recipe/usermetadata';
import UserRoles from 'supertokens-node/recipe/userroles';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, stopRuntime } from './migrate-helpers.js';
import { buildImportCases, emailVariant, FIREBASE, type ImportCase } from './sdk-fixtures.js';

/**
 * Users imported from legacy providers sign in through the unmodified official backend SDK
 * (supertokens-node), talking to `npm start` over HTTP with an API key. Setup and import use
 * plain HTTP (the SDK has no import API); every assertion afterwards goes through the SDK.
 */

const API_KEY = `sdk-e2e-${randomBytes(12).toString('hex')}`;
const APP_ID = `sdk-${randomBytes(4).toString('hex')}`;
const ROLE = 'migrated-admin';
const PERMISSIONS = ['users:read', 'users:write'];
const PROVIDER_SECRET = `provider-secret-${randomBytes(8).toString('hex')}`;
const APPLE_PRIVATE_KEY = `-----BEGIN PRIVATE KEY-----\n${randomBytes(48).toString('base64')}\n-----END PRIVATE KEY-----`;

let runtime: LocalProcess | undefined;
let cases: ImportCase[] = [];
/** The id each imported user got (externalUserId when given). */
const ids = new Map<ImportCase, string>();

const call = coreCaller(() => runtime!, API_KEY);
const core = (method: string, path: string, body?: unknown) => call(method, `/appid-${APP_ID}${path}`, body);

function idOf(c: ImportCase): string {
  const id = ids.get(c);
  if (!id) throw new Error(`${c.label} was not imported`);
  return id;
}

const publicCases = () => cases.filter((c) => c.tenantId === 'public');
const t1Case = () => {
  const c = cases.find((x) => x.tenantId === 't1');
  if (!c) throw new Error('no t1 user');
  return c;
};

beforeAll(async () => {
  cases = await buildImportCases(ROLE);

  runtime = await LocalProcess.start({ args: ['--in-memory'], env: { API_KEYS: API_KEY } });
  await runtime.waitUntilReady();
  const hello = await runtime.fetch('/hello');
  expect(hello.status).toBe(200);

  // App with the Firebase signer key (app-management call, no app prefix).
  const app = await runtime.fetch('/recipe/multitenancy/app/v2', {
    method: 'PUT',
    headers: { 'api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ appId: APP_ID, coreConfig: { firebase_password_hashing_signer_key: FIREBASE.signerKey } }),
  });
  expect(`${app.status} ${await app.text()}`).toMatch(/^200 .*"createdNew":true/);

  const tenant = await core('PUT', '/recipe/multitenancy/tenant/v2', {
    tenantId: 't1',
    firstFactors: ['emailpassword'],
  });
  expect(tenant.status, tenant.text).toBe(200);
  expect(tenant.json).toMatchObject({ status: 'OK', createdNew: true });

  const role = await core('PUT', '/recipe/role', { role: ROLE, permissions: PERMISSIONS });
  expect(role.status, role.text).toBe(200);
  expect(role.json).toMatchObject({ status: 'OK', createdNewRole: true });

  for (const c of cases) {
    const imported = await core('POST', '/bulk-import/import', c.body);
    expect(imported.status, `import of ${c.label}: ${imported.text}`).toBe(200);
    expect(imported.json?.status, `import of ${c.label}: ${imported.text}`).toBe('OK');
    const id = imported.json.user.id as string;
    if (c.externalUserId) expect(id).toBe(c.externalUserId);
    ids.set(c, id);
  }

  supertokens.init({
    appInfo: { appName: 'sdk-e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: `${runtime.url}/appid-${APP_ID}`, apiKey: API_KEY },
    telemetry: false,
    recipeList: [EmailPassword.init(), Session.init(), UserRoles.init()],
  });
});

afterAll(() => stopRuntime(runtime, undefined));

describe('imported users through supertokens-node', () => {
  it('the core refuses requests without the API key (the SDK sends it)', async () => {
    const response = await runtime!.fetch(`/appid-${APP_ID}/apiversion`);
    expect(response.status).toBe(401);
    expect((await response.text()).trim()).toBe('Invalid API key');
  });

  it('signs in every hash format and the plain-text user with the imported password', async () => {
    for (const c of cases) {
      const result = await EmailPassword.signIn(c.tenantId, c.email, c.password);
      expect(result.status, `signIn ${c.label}`).toBe('OK');
      if (result.status !== 'OK') continue;
      const id = idOf(c);
      if (c.externalUserId) expect(result.user.id).toBe(c.externalUserId);
      expect(result.user.id).toBe(id);
      expect(result.recipeUserId.getAsString()).toBe(id);
      expect(result.user.emails).toEqual([c.email]);
      expect(result.user.tenantIds).toEqual([c.tenantId]);
      expect(result.user.isPrimaryUser).toBe(false);
      expect(result.user.timeJoined).toBe(c.timeJoined);
      expect(result.user.loginMethods).toHaveLength(1);
      const method = result.user.loginMethods[0]!;
      expect(method.recipeId).toBe('emailpassword');
      expect(method.email).toBe(c.email);
      expect(method.recipeUserId.getAsString()).toBe(id);
      expect(method.verified).toBe(c.isVerified);
    }
  });

  it('signs in with the email in another case and with blanks around it', async () => {
    for (const c of cases) {
      const variant = emailVariant(c.email);
      const result = await EmailPassword.signIn(c.tenantId, variant, c.password);
      expect(result.status, `signIn ${c.label} as ${JSON.stringify(variant)}`).toBe('OK');
      if (result.status === 'OK') expect(result.user.id).toBe(idOf(c));
    }
    // The email exactly as it was sent to the import (mixed case, blanks).
    const messy = cases.find((c) => c.importedEmail !== c.email)!;
    expect((await EmailPassword.signIn(messy.tenantId, messy.importedEmail, messy.password)).status).toBe('OK');
  });

  it('rejects wrong passwords and unknown emails with WRONG_CREDENTIALS_ERROR', async () => {
    for (const c of cases) {
      const wrong = await EmailPassword.signIn(c.tenantId, c.email, `${c.password}x`);
      expect(wrong.status, `wrong password for ${c.label}`).toBe('WRONG_CREDENTIALS_ERROR');
    }
    const firebase = cases.find((c) => c.label === 'firebase scrypt')!;
    expect((await EmailPassword.signIn('public', firebase.email, 'user2password')).status).toBe(
      'WRONG_CREDENTIALS_ERROR',
    );
    expect((await EmailPassword.signIn('public', 'nobody@example.com', 'whatever-password')).status).toBe(
      'WRONG_CREDENTIALS_ERROR',
    );
    // Another user's password does not work either.
    const [a, b] = publicCases();
    expect((await EmailPassword.signIn('public', a!.email, b!.password)).status).toBe('WRONG_CREDENTIALS_ERROR');
  });

  it('keeps the t1 user in tenant t1 only', async () => {
    const c = t1Case();
    expect((await EmailPassword.signIn('t1', c.email, c.password)).status).toBe('OK');
    expect((await EmailPassword.signIn('public', c.email, c.password)).status).toBe('WRONG_CREDENTIALS_ERROR');
    // and public users do not sign in on t1
    const p = publicCases()[0]!;
    expect((await EmailPassword.signIn('t1', p.email, p.password)).status).toBe('WRONG_CREDENTIALS_ERROR');
  });

  it('an imported email cannot be signed up again', async () => {
    for (const c of cases) {
      const result = await EmailPassword.signUp(c.tenantId, emailVariant(c.email), `${c.password}-new`);
      expect(result.status, `signUp ${c.label}`).toBe('EMAIL_ALREADY_EXISTS_ERROR');
    }
    // The old password still works.
    const c = cases[0]!;
    expect((await EmailPassword.signIn(c.tenantId, c.email, c.password)).status).toBe('OK');
  });

  it('getUser returns each user with its login method', async () => {
    for (const c of cases) {
      const id = idOf(c);
      const user = await supertokens.getUser(id);
      expect(user, `getUser ${c.label}`).toBeDefined();
      if (!user) continue;
      expect(user.id).toBe(id);
      expect(user.isPrimaryUser).toBe(false);
      expect(user.emails).toEqual([c.email]);
      expect(user.phoneNumbers).toEqual([]);
      expect(user.thirdParty).toEqual([]);
      expect(user.tenantIds).toEqual([c.tenantId]);
      expect(user.timeJoined).toBe(c.timeJoined);
      expect(user.loginMethods).toHaveLength(1);
      const method = user.loginMethods[0]!;
      expect(method.recipeId).toBe('emailpassword');
      expect(method.recipeUserId.getAsString()).toBe(id);
      expect(method.email).toBe(c.email);
      expect(method.tenantIds).toEqual([c.tenantId]);
      expect(method.verified).toBe(c.isVerified);
      expect(method.timeJoined).toBe(c.timeJoined);
    }
    expect(await supertokens.getUser('no-such-user-id')).toBeUndefined();
  });

  it('UserRoles.getRolesForUser returns the imported role', async () => {
    for (const c of cases) {
      const roles = await UserRoles.getRolesForUser('public', idOf(c));
      expect(roles, `roles of ${c.label}`).toEqual({ status: 'OK', roles: c.withRole ? [ROLE] : [] });
    }
  });

  it('UserMetadata.getUserMetadata returns the imported metadata', async () => {
    for (const c of cases) {
      const metadata = await UserMetadata.getUserMetadata(idOf(c));
      expect(metadata, `metadata of ${c.label}`).toEqual({ status: 'OK', metadata: c.metadata ?? {} });
    }
  });

  it('Multitenancy.listAllTenants lists public and t1', async () => {
    const list = await Multitenancy.listAllTenants();
    expect(list.status).toBe('OK');
    expect(list.tenants.map((t) => t.tenantId).sort()).toEqual(['public', 't1']);
    const t1 = list.tenants.find((t) => t.tenantId === 't1')!;
    expect(t1.firstFactors).toEqual(['emailpassword']);
  });

  it("Multitenancy's provider reads give back the secrets written (sealed at rest in between)", async () => {
    const google = {
      thirdPartyId: 'google',
      clients: [{ clientType: 'web', clientId: 'g-web', clientSecret: PROVIDER_SECRET, scope: ['email'] }],
    };
    const apple = {
      thirdPartyId: 'apple',
      clients: [{ clientId: 'a-1', additionalConfig: { keyId: 'K1', teamId: 'T1', privateKey: APPLE_PRIVATE_KEY } }],
    };
    for (const config of [google, apple]) {
      expect(await Multitenancy.createOrUpdateThirdPartyConfig('t1', config)).toEqual({
        status: 'OK',
        createdNew: true,
      });
    }
    const tenant = await Multitenancy.getTenant('t1');
    expect(tenant?.thirdParty.providers).toEqual([google, apple]);
    const listed = (await Multitenancy.listAllTenants()).tenants.find((t) => t.tenantId === 't1')!;
    expect(listed.thirdParty.providers).toEqual([google, apple]);
    // The app list (no SDK call) shows fingerprints instead.
    const apps = await call('GET', '/recipe/multitenancy/app/list/v2');
    expect(apps.text).not.toContain(PROVIDER_SECRET);
    expect(apps.text).not.toContain(APPLE_PRIVATE_KEY.slice(30, 60));
  });

  it('getUserCount counts the imported users', async () => {
    expect(await supertokens.getUserCount()).toBe(cases.length);
    expect(await supertokens.getUserCount(undefined, 'public')).toBe(publicCases().length);
    expect(await supertokens.getUserCount(['emailpassword'], 't1')).toBe(1);
  });

  it('getUsersNewestFirst lists the public users newest first', async () => {
    const expected = publicCases()
      .sort((a, b) => b.timeJoined - a.timeJoined)
      .map(idOf);

    const all = await supertokens.getUsersNewestFirst({ tenantId: 'public' });
    expect(all.users.map((u) => u.id)).toEqual(expected);
    expect(all.nextPaginationToken).toBeUndefined();
    const newest = all.users[0]!;
    expect(newest.loginMethods[0]!.recipeId).toBe('emailpassword');

    // Paged: 3 + 3 + rest, same order.
    const seen: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await supertokens.getUsersNewestFirst({
        tenantId: 'public',
        limit: 3,
        ...(token ? { paginationToken: token } : {}),
      });
      seen.push(...result.users.map((u) => u.id));
      token = result.nextPaginationToken;
      if (!token) break;
    }
    expect(seen).toEqual(expected);

    const oldest = await supertokens.getUsersOldestFirst({ tenantId: 'public' });
    expect(oldest.users.map((u) => u.id)).toEqual([...expected].reverse());
  });

  it('never writes passwords, hashes or the signer key to the runtime output', () => {
    const output = `${runtime!.stdout}\n${runtime!.stderr}`;
    expect(runtime!.running).toBe(true);
    const secrets = [...new Set([...cases.flatMap((c) => c.secrets), FIREBASE.signerKey, FIREBASE.hash])];
    for (const secret of secrets) {
      expect(output.includes(secret), `runtime output contains ${secret.slice(0, 12)}…`).toBe(false);
    }
    // The API key is a credential too.
    expect(output.includes(API_KEY)).toBe(false);
  });
});
