import { afterAll, describe, expect, it } from 'vitest';
import {
  BCRYPT_HASH,
  call,
  captureLogs,
  createApp,
  createRole,
  epUser,
  expectNoSecrets,
  listAll,
  stage,
  stagedCount,
} from './bulk-support.js';

const logs = captureLogs();
const ARGON2_HASH = '$argon2d$v=19$m=12,t=3,p=1$aGI4enNvMmd0Zm0wMDAwMA$r6p7qbr6HD+8CD7sBi4HVw';
const SECRETS = [BCRYPT_HASH, ARGON2_HASH, 'staged-plain-pw', 'TOTPSECRETSTAGED'];
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, SECRETS);
});

const users = (appId: string) => `/appid-${appId}/bulk-import/users`;

describe('POST /bulk-import/users (AddBulkImportUsersTest)', () => {
  it('checks the body before the app, in the reference order', async () => {
    const missing = await call('POST', users('no-such-app'), { body: {} });
    expect([missing.status, missing.text]).toEqual([400, "Field name 'users' is invalid in JSON input"]);
    const str = await call('POST', users('no-such-app'), { body: { users: 'string' } });
    expect(str.text).toBe("Field name 'users' is invalid in JSON input");
    const empty = await call('POST', users('no-such-app'), { body: { users: [] } });
    expect([empty.status, empty.json]).toEqual([200, { status: 'OK' }]);
    const tooMany = await call('POST', users('no-such-app'), {
      body: { users: Array.from({ length: 10001 }, () => ({})) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.contentType).toContain('application/json');
    expect(tooMany.json).toEqual({ error: 'You can only add 10000 users at a time.' });
    const unknownApp = await call('POST', users('no-such-app'), { body: { users: [{}] } });
    expect(unknownApp.status).toBe(400);
    expect(unknownApp.text).toMatch(/^AppId or tenantId not found => /);
    const appId = await createApp({}, ['t1'], 'bulkapi');
    const tenant = await call('POST', `/appid-${appId}/t1/bulk-import/users`, { body: { users: [{}] } });
    expect([tenant.status, tenant.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
  });

  it('reports invalid users by index and stages nothing', async () => {
    const appId = await createApp({}, [], 'bulkapi');
    const res = await stage(appId, [
      { externalUserId: 'id1' },
      { externalUserId: 'id1', userRoles: [{ role: 'role5', tenantIds: ['public'] }] },
      epUser(3),
    ]);
    expect(res.status).toBe(400);
    expect(res.contentType).toContain('application/json');
    expect(res.json).toEqual({
      error: 'Data has missing or invalid fields. Please check the users field for more details.',
      users: [
        { index: 0, errors: ['loginMethods is required.'] },
        {
          index: 1,
          errors: [
            'Role role5 does not exist.',
            'loginMethods is required.',
            'externalUserId id1 is not unique. It is already used by another user.',
          ],
        },
      ],
    });
    expect(await stagedCount(appId)).toBe(0);
  });

  it('stages users as NEW (gzip body) and answers in request order', async () => {
    const appId = await createApp({ mfa_enabled: true }, [], 'bulkapi');
    await createRole(appId, 'role1');
    const res = await stage(
      appId,
      [
        {
          externalUserId: 'ext-a',
          userRoles: [{ role: 'role1', tenantIds: ['public'] }],
          totpDevices: [{ secretKey: 'TOTPSECRETSTAGED' }],
          loginMethods: [
            {
              recipeId: 'emailpassword',
              email: ' JohnDoe+0@Gmail.com ',
              passwordHash: ARGON2_HASH,
              hashingAlgorithm: 'argon2',
            },
          ],
        },
        {
          loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+91-9999999999' }],
        },
        {
          loginMethods: [
            { recipeId: 'thirdparty', email: 'tp@example.com', thirdPartyId: 'google', thirdPartyUserId: 'g1' },
            { recipeId: 'emailpassword', email: 'x@example.com', plainTextPassword: 'staged-plain-pw' },
          ].slice(0, 1),
        },
      ],
      { gzip: true },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe('OK');
    const [a, b, c] = res.json.users;
    expect(a.userId).toBe('ext-a');
    expect(a.loginMethods[0]).toMatchObject({
      recipeId: 'emailpassword',
      tenants: ['public'],
      email: 'johndoe+0@gmail.com',
    });
    expect(b.loginMethods[0]).toMatchObject({ recipeId: 'passwordless', email: null, phoneNumber: '+919999999999' });
    expect(b.userId).toBe(b.loginMethods[0].userId);
    expect(c.loginMethods[0]).toMatchObject({ thirdpartyId: 'google', thirdpartyUserId: 'g1' });

    expect(await stagedCount(appId)).toBe(3);
    expect(await stagedCount(appId, 'NEW')).toBe(3);
    expect(await stagedCount(appId, 'PROCESSING')).toBe(0);
    expect(await stagedCount(appId, 'FAILED')).toBe(0);

    const listed = await listAll(appId);
    expect(listed).toHaveLength(3);
    const first = listed.find((u) => u.externalUserId === 'ext-a');
    expect(first).toMatchObject({ status: 'NEW', userRoles: [{ role: 'role1', tenantIds: ['public'] }] });
    expect(first.totpDevices).toEqual([{ period: 30, skew: 1 }]);
    expect(first.loginMethods[0].email).toBe('johndoe+0@gmail.com');
    expect(first.loginMethods[0].hashingAlgorithm).toBe('ARGON2');
    expect(typeof first.createdAt).toBe('number');
    expect(typeof first.updatedAt).toBe('number');
    expect(first.errorMessage).toBeUndefined();
    // Deliberate difference 4: staged credentials are omitted.
    expect(JSON.stringify(listed)).not.toContain(ARGON2_HASH);
    expect(JSON.stringify(listed)).not.toContain('TOTPSECRETSTAGED');
    expect(first.loginMethods[0]).not.toHaveProperty('passwordHash');
  });
});

describe('GET /bulk-import/users and /count (GetBulkImportUsersTest, CountBulkImportUsersTest)', () => {
  it('validates its query with the reference messages', async () => {
    const appId = await createApp({}, [], 'bulkapi');
    const get = (qs: string) => call('GET', `${users(appId)}?${qs}`);
    expect((await get('status=INVALID_STATUS')).text).toBe(
      'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!',
    );
    expect((await get('limit=0')).text).toBe('limit must a positive integer with min value 1');
    expect((await get('limit=501')).text).toBe('Max limit allowed is 500');
    expect((await get('limit=abc')).text).toBe("Field name 'limit' must be an int in the GET request");
    expect((await get('paginationToken=invalid_token')).text).toBe('invalid pagination token');
    const count = await call('GET', `${users(appId)}/count?status=new`);
    expect([count.status, count.text]).toEqual([
      400,
      'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!',
    ]);
    for (const status of [undefined, 'NEW', 'PROCESSING', 'FAILED']) expect(await stagedCount(appId, status)).toBe(0);
    const empty = await get('');
    expect(empty.json).toEqual({ status: 'OK', users: [] });
  });

  it('pages newest first across shards, each row exactly once, with opaque tokens', async () => {
    const appId = await createApp({}, [], 'bulkapi');
    const ids: string[] = [];
    for (let batch = 0; batch < 3; batch++) {
      const res = await stage(
        appId,
        Array.from({ length: 25 }, (_, i) => epUser(batch * 100 + i)),
      );
      ids.push(...res.json.users.map((u: any) => u.userId));
      await new Promise((r) => setTimeout(r, 5));
    }
    for (const limit of [4, 25, 100]) {
      const seen: any[] = [];
      let token: string | undefined;
      do {
        const qs = new URLSearchParams({ limit: String(limit), ...(token ? { paginationToken: token } : {}) });
        const res = await call('GET', `${users(appId)}?${qs}`);
        expect(res.status, res.text).toBe(200);
        expect(res.json.users.length).toBeLessThanOrEqual(limit);
        seen.push(...res.json.users);
        token = res.json.nextPaginationToken;
      } while (token);
      expect(seen.map((u) => u.id).sort()).toEqual([...ids].sort());
      const order = seen.map((u) => [u.createdAt, u.id]);
      const sorted = [...order].sort((x, y) => y[0] - x[0] || (y[1] < x[1] ? -1 : y[1] > x[1] ? 1 : 0));
      expect(order).toEqual(sorted);
    }
    expect(await listAll(appId, 'NEW')).toHaveLength(75);
    expect(await listAll(appId, 'FAILED')).toHaveLength(0);
  });
});

describe('POST /bulk-import/users/remove (DeleteBulkImportUsersTest)', () => {
  it('validates ids and removes existing rows in request order, keeping counts exact', async () => {
    const appId = await createApp({}, [], 'bulkapi');
    const remove = (body: unknown) => call('POST', `${users(appId)}/remove`, { body });
    expect((await remove({})).text).toBe("Field name 'ids' is invalid in JSON input");
    expect((await remove({ ids: Array.from({ length: 501 }, (_, i) => `id${i}`) })).text).toBe(
      "Field name 'ids' cannot contain more than 500 elements",
    );
    expect((await remove({ ids: [1] })).text).toBe("Field name 'ids' is invalid in JSON input");
    expect((await remove({ ids: [''] })).text).toBe("Field name 'ids' cannot contain an empty string");
    const empty = await call('POST', '/appid-no-such-app/bulk-import/users/remove', { body: { ids: [] } });
    expect([empty.status, empty.json]).toEqual([200, { deletedIds: [], invalidIds: [] }]);

    const staged = await stage(
      appId,
      Array.from({ length: 6 }, (_, i) => epUser(i)),
    );
    const ids: string[] = staged.json.users.map((u: any) => u.userId);
    const random = '00000000-0000-4000-8000-000000000000';
    const res = await remove({ ids: [ids[4], random, ids[0], ids[1], ids[2], ids[3]] });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ deletedIds: [ids[4], ids[0], ids[1], ids[2], ids[3]], invalidIds: [random] });
    expect(await stagedCount(appId)).toBe(1);
    expect(await stagedCount(appId, 'NEW')).toBe(1);
  });

  it('app deletion removes staged rows and counters', async () => {
    const appId = await createApp({}, [], 'bulkapi');
    await stage(
      appId,
      Array.from({ length: 5 }, (_, i) => epUser(i)),
    );
    const { appItems } = await import('./users-support.js');
    expect((await appItems(appId)).length).toBeGreaterThan(5);
    const removed = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId } });
    expect(removed.json.didExist).toBe(true);
    expect(await appItems(appId)).toEqual([]);
  });
});
