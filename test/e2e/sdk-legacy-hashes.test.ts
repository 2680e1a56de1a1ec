import { randomBytes } from 'node:crypto';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Session from 'supertokens-node/recipe/session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalProcess } from '../helpers/local-process.js';
import { BEYOND_BOUNDS, type LegacyHashCase, legacyHashCases } from './legacy-hash-fixtures.js';
import { coreCaller, stopRuntime } from './migrate-helpers.js';

/**
 * Every legacy hash family and form, imported one user at a time (`POST /bulk-import/import`, in
 * `public`) and in bulk (`POST /bulk-import/users`, in `staged`, through the import worker), then
 * signed in through the unmodified supertokens-node against `npm start`: the first sign-in
 * verifies the legacy hash and upgrades it, the second verifies the upgraded one; wrong passwords
 * are refused before and after. Costs beyond the bounds are refused at import.
 */

const API_KEY = `legacy-e2e-${randomBytes(12).toString('hex')}`;
const APP_ID = `legacy-${randomBytes(4).toString('hex')}`;
const TENANTS = ['public', 'staged'] as const;

let runtime: LocalProcess | undefined;
const cases: LegacyHashCase[] = legacyHashCases();
const emailOf = (i: number) => `legacy${i}@example.com`;

const call = coreCaller(() => runtime!, API_KEY);
const core = (method: string, path: string, body?: unknown) => call(method, `/appid-${APP_ID}${path}`, body);

const userOf = (c: LegacyHashCase, i: number, tenantId: string) => ({
  externalUserId: `${tenantId}-legacy-${i}`,
  loginMethods: [
    {
      recipeId: 'emailpassword',
      email: emailOf(i),
      passwordHash: c.passwordHash,
      hashingAlgorithm: c.hashingAlgorithm,
      tenantIds: [tenantId],
    },
  ],
});

async function stagedPending(): Promise<number> {
  const counts = await Promise.all(
    ['NEW', 'PROCESSING'].map(async (status) => (await core('GET', `/bulk-import/users/count?status=${status}`)).json),
  );
  return counts.reduce((sum, c) => sum + (c?.count ?? 0), 0);
}

beforeAll(async () => {
  // The upgraded hashes are bcrypt at a low cost: this test is about the legacy families.
  runtime = await LocalProcess.start({ args: ['--in-memory'], env: { API_KEYS: API_KEY, BCRYPT_LOG_ROUNDS: '6' } });
  await runtime.waitUntilReady();
  const app = await call('PUT', '/recipe/multitenancy/app/v2', { appId: APP_ID });
  expect(app.status, app.text).toBe(200);
  const tenant = await core('PUT', '/recipe/multitenancy/tenant/v2', {
    tenantId: 'staged',
    firstFactors: ['emailpassword'],
  });
  expect(tenant.status, tenant.text).toBe(200);

  for (const [i, c] of cases.entries()) {
    const imported = await core('POST', '/bulk-import/import', userOf(c, i, 'public'));
    expect(imported.status, `${c.label}: ${imported.text}`).toBe(200);
  }
  const staged = await core('POST', '/bulk-import/users', { users: cases.map((c, i) => userOf(c, i, 'staged')) });
  expect(staged.status, staged.text).toBe(200);
  const deadline = Date.now() + 120_000;
  while ((await stagedPending()) > 0) {
    if (Date.now() > deadline) throw new Error('the staged users were not imported');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const failed = await core('GET', '/bulk-import/users?status=FAILED');
  expect(failed.json?.users, failed.text).toEqual([]);

  supertokens.init({
    appInfo: { appName: 'legacy-e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: `${runtime.url}/appid-${APP_ID}`, apiKey: API_KEY },
    telemetry: false,
    recipeList: [EmailPassword.init(), Session.init()],
  });
});

afterAll(() => stopRuntime(runtime, undefined));

describe('legacy hashes through supertokens-node', () => {
  it('imports one user per family and form, one at a time and in bulk', async () => {
    expect(await supertokens.getUserCount(undefined, 'public')).toBe(cases.length);
    expect(await supertokens.getUserCount(undefined, 'staged')).toBe(cases.length);
  });

  it('signs each in with its password, then again after the upgrade; wrong passwords are refused before and after', async () => {
    for (const tenantId of TENANTS) {
      for (const [i, c] of cases.entries()) {
        const what = `${c.label} in ${tenantId}`;
        expect((await EmailPassword.signIn(tenantId, emailOf(i), `${c.password}x`)).status, what).toBe(
          'WRONG_CREDENTIALS_ERROR',
        );
        const first = await EmailPassword.signIn(tenantId, emailOf(i), c.password);
        expect(first.status, what).toBe('OK');
        if (first.status !== 'OK') continue;
        expect(first.user.id, what).toBe(`${tenantId}-legacy-${i}`);
        expect(first.user.emails).toEqual([emailOf(i)]);
        // Verified again, now against the app's bcrypt hash that replaced the legacy one.
        const second = await EmailPassword.signIn(tenantId, emailOf(i), c.password);
        expect(second.status, what).toBe('OK');
        if (second.status === 'OK') expect(second.user.toJson()).toEqual(first.user.toJson());
        expect((await EmailPassword.verifyCredentials(tenantId, emailOf(i), c.password)).status, what).toBe('OK');
        expect((await EmailPassword.signIn(tenantId, emailOf(i), `${c.password}x`)).status, what).toBe(
          'WRONG_CREDENTIALS_ERROR',
        );
      }
    }
  });

  it('refuses costs beyond the bounds at import with the family and the limit named', async () => {
    for (const [i, bound] of BEYOND_BOUNDS.entries()) {
      const user = {
        loginMethods: [
          {
            recipeId: 'emailpassword',
            email: `bound${i}@example.com`,
            passwordHash: bound.passwordHash,
            hashingAlgorithm: bound.hashingAlgorithm,
          },
        ],
      };
      const imported = await core('POST', '/bulk-import/import', user);
      expect(imported.status).toBe(400);
      expect(imported.json).toEqual({ errors: [bound.message] });
      const staged = await core('POST', '/bulk-import/users', { users: [user] });
      expect(staged.status).toBe(400);
      expect(staged.json?.users).toEqual([{ index: 0, errors: [bound.message] }]);
    }
  });

  it('refuses an unknown algorithm naming every accepted one', async () => {
    const imported = await core('POST', '/bulk-import/import', {
      loginMethods: [
        { recipeId: 'emailpassword', email: 'unknown@example.com', passwordHash: 'x', hashingAlgorithm: 'crypt' },
      ],
    });
    expect(imported.status).toBe(400);
    expect(imported.json).toEqual({
      errors: [
        'Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2, firebase_scrypt, pbkdf2, scrypt, phpass, md5, sha1, sha256, sha512 or, ldap!',
      ],
    });
  });

  it('never writes a password or a hash to the runtime output', () => {
    const output = `${runtime?.stdout}\n${runtime?.stderr}`;
    for (const c of cases) {
      expect(output.includes(c.passwordHash), `${c.label}: hash in the output`).toBe(false);
      // Short dictionary passwords ("password", "test") are words of ordinary log lines.
      if (c.password.length >= 9) expect(output.includes(c.password), `${c.label}: password in the output`).toBe(false);
    }
    for (const bound of BEYOND_BOUNDS) expect(output.includes(bound.passwordHash)).toBe(false);
    expect(output.includes(API_KEY)).toBe(false);
  });
});
