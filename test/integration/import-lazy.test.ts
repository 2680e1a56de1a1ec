import { afterAll, describe, expect, it } from 'vitest';
import { call, captureLogs, createApp, createRole, expectNoSecrets, importUser, signIn } from './users-support.js';

const logs = captureLogs();
const SECRETS: string[] = [];
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, SECRETS);
});

const ARGON2_HASH = '$argon2d$v=19$m=12,t=3,p=1$aGI4enNvMmd0Zm0wMDAwMA$r6p7qbr6HD+8CD7sBi4HVw';
SECRETS.push(ARGON2_HASH, 'totp-secret-key-1', 'a-plain-password-1');

function fullUser(n: number, overrides: Record<string, unknown> = {}) {
  const email = `johndoe+${n}@gmail.com`;
  return {
    externalUserId: `external-${n}`,
    userMetadata: { key1: 'value1', key2: { key3: 'value3' } },
    userRoles: [
      { role: 'role1', tenantIds: ['public', 't1'] },
      { role: 'role2', tenantIds: ['public'] },
    ],
    totpDevices: [{ secretKey: 'totp-secret-key-1', deviceName: 'my device' }],
    loginMethods: [
      {
        tenantIds: ['public', 't1'],
        email: ` JohnDoe+${n}@Gmail.com `,
        isVerified: true,
        isPrimary: true,
        timeJoinedInMSSinceEpoch: 1000 + n,
        recipeId: 'emailpassword',
        passwordHash: ARGON2_HASH,
        hashingAlgorithm: 'argon2',
      },
      {
        tenantIds: ['public', 't1'],
        isVerified: true,
        isPrimary: false,
        timeJoinedInMSSinceEpoch: 500 + n,
        recipeId: 'thirdparty',
        email,
        thirdPartyId: 'google',
        thirdPartyUserId: `tp-user-${n}`,
      },
      {
        tenantIds: ['public', 't1'],
        isVerified: true,
        isPrimary: false,
        timeJoinedInMSSinceEpoch: 2000 + n,
        recipeId: 'passwordless',
        email,
        phoneNumber: `+91-99999${String(n).padStart(5, '0')}`,
      },
    ],
    ...overrides,
  };
}

describe('POST /bulk-import/import (ImportUserTest)', () => {
  it('imports a valid user with roles, tenants, TOTP and metadata and returns the user object', async () => {
    const appId = await createApp({ account_linking_enabled: true, mfa_enabled: true }, ['t1']);
    await createRole(appId, 'role1');
    await createRole(appId, 'role2');
    const res = await importUser(appId, fullUser(1));
    expect(res.status, res.text).toBe(200);
    expect(res.contentType).toContain('application/json');
    const user = res.json.user;
    expect(res.json.status).toBe('OK');
    expect(user.id).toBe('external-1');
    expect(user.isPrimaryUser).toBe(true);
    expect(user.tenantIds.sort()).toEqual(['public', 't1']);
    // Time-joined normalisation: the group's minimum.
    expect(user.timeJoined).toBe(501);
    expect(user.emails).toEqual(['johndoe+1@gmail.com']);
    expect(user.phoneNumbers).toEqual(['+919999900001']);
    expect(user.thirdParty).toEqual([{ id: 'google', userId: 'tp-user-1' }]);
    expect(user.loginMethods.map((lm: any) => lm.recipeId)).toEqual(['thirdparty', 'emailpassword', 'passwordless']);
    expect(user.loginMethods.every((lm: any) => lm.verified === true)).toBe(true);
    // The primary login method's recipe user id is the external id; the others are fresh UUIDs.
    const ep = user.loginMethods.find((lm: any) => lm.recipeId === 'emailpassword');
    expect(ep.recipeUserId).toBe('external-1');
    expect(JSON.stringify(res.json)).not.toContain('argon2');

    const got = await call('GET', `/appid-${appId}/user/id?userId=external-1`);
    expect(got.json).toEqual({ status: 'OK', user });
    const roles = await call('GET', `/appid-${appId}/t1/recipe/user/roles?userId=external-1`);
    expect(roles.json.roles).toEqual(['role1']);
    const metadata = await call('GET', `/appid-${appId}/recipe/user/metadata?userId=external-1`);
    expect(metadata.json.metadata).toEqual({ key1: 'value1', key2: { key3: 'value3' } });
    const devices = await call('GET', `/appid-${appId}/recipe/totp/device/list?userId=external-1`);
    expect(devices.json.devices.map((d: any) => d.name)).toEqual(['my device']);
  });

  it('imports without roles, with one login method and the bare minimum', async () => {
    const appId = await createApp({ account_linking_enabled: true, mfa_enabled: true }, ['t1']);
    const noRoles = await importUser(appId, fullUser(2, { userRoles: [] }));
    expect(noRoles.status, noRoles.text).toBe(200);
    const one = await importUser(appId, {
      loginMethods: [{ recipeId: 'emailpassword', email: 'one@x.com', plainTextPassword: 'a-plain-password-1' }],
    });
    expect(one.status, one.text).toBe(200);
    expect(one.json.user.isPrimaryUser).toBe(false);
    expect(one.json.user.loginMethods[0].recipeUserId).toBe(one.json.user.id);
    const bare = await importUser(appId, {
      loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155552671' }],
    });
    expect(bare.status, bare.text).toBe(200);
    expect(bare.json.user.phoneNumbers).toEqual(['+14155552671']);
    const signedIn = await signIn(appId, 'ONE@x.com ', 'a-plain-password-1');
    expect(signedIn.json.status).toBe('OK');
  });

  it('refuses isPrimary without account linking (E019) and accepts non-primary users with roles on public+t1', async () => {
    const appId = await createApp({}, ['t1']);
    await createRole(appId, 'role1');
    const primary = await importUser(appId, {
      loginMethods: [{ recipeId: 'emailpassword', email: 'p@x.com', isPrimary: true, plainTextPassword: 'pw-123456' }],
    });
    expect(primary.status).toBe(400);
    expect(primary.contentType).toContain('application/json');
    expect(primary.json.errors[0]).toContain(
      'E019: Account linking feature is not enabled for this app. Please contact support to enable it.',
    );
    for (const n of [1, 2]) {
      const res = await importUser(appId, {
        userRoles: [{ role: 'role1', tenantIds: ['public', 't1'] }],
        loginMethods: [
          {
            recipeId: 'emailpassword',
            email: `np${n}@x.com`,
            tenantIds: ['public', 't1'],
            plainTextPassword: 'pw-123456',
          },
        ],
      });
      expect(res.status, res.text).toBe(200);
    }
    // No TOTP devices and no MFA → fine.
    const noTotp = await importUser(appId, {
      loginMethods: [{ recipeId: 'thirdparty', email: 'tp@x.com', thirdPartyId: 'github', thirdPartyUserId: 'g1' }],
    });
    expect(noTotp.status, noTotp.text).toBe(200);
  });

  it('answers validation errors with the exact JSON body', async () => {
    const appId = await createApp();
    const res = await importUser(appId, { loginMethods: [{ recipeId: 'nope', email: 'a@b.com' }] });
    expect(res.status).toBe(400);
    expect(res.contentType).toContain('application/json');
    expect(res.text).toBe(
      '{"errors":["Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!"]}',
    );
    const roles = await importUser(appId, {
      userRoles: [{ role: 'role1', tenantIds: ['t1'] }],
      loginMethods: [{ recipeId: 'emailpassword', email: 'a@b.com', plainTextPassword: 'x' }],
    });
    expect(roles.status).toBe(400);
    expect(roles.json.errors).toContain('Role role1 does not exist.');
  });

  it('answers 400 for an unknown app', async () => {
    const res = await importUser('no-such-app-xyz', fullUser(3));
    expect(res.status).toBe(400);
    expect(res.text).toContain('AppId or tenantId not found');
  });
});

describe('lazy import flow (BulkImportFlowTest)', () => {
  it('imports 100 users (all 200), counts 100, and refuses the same user twice', async () => {
    const appId = await createApp({ account_linking_enabled: true, mfa_enabled: true }, ['t1']);
    await createRole(appId, 'role1');
    await createRole(appId, 'role2');
    const users = Array.from({ length: 100 }, (_, i) => fullUser(100 + i));
    const results = [];
    // 25 concurrent requests at a time: enough to contend on the counter shards, not the sockets.
    for (let i = 0; i < users.length; i += 25) {
      results.push(...(await Promise.all(users.slice(i, i + 25).map((u) => importUser(appId, u)))));
    }
    expect(results.map((r) => r.status)).toEqual(users.map(() => 200));
    const count = await call('GET', `/appid-${appId}/public/users/count`);
    expect(count.json).toEqual({ status: 'OK', count: 100 });
    const all = await call('GET', `/appid-${appId}/public/users/count?includeAllTenants=true`);
    expect(all.json.count).toBe(100);

    const again = await importUser(appId, users[0]);
    expect(again.status).toBe(400);
    expect(again.json.errors.some((e: string) => /^E0(03|05|06|07|27|31):/.test(e))).toBe(true);
    const after = await call('GET', `/appid-${appId}/public/users/count`);
    expect(after.json.count).toBe(100);
  });
});
