import { afterAll, expect, it } from 'vitest';
import { removeTenantFromUsers } from '#functions/storage/users/purge.js';
import { baseTable } from '#functions/wiring/tables.js';
import { call, captureLogs, createApp, expectNoSecrets, importUser } from './users-support.js';

const logs = captureLogs();
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, ['tenant-pass-1']);
});

it('takes a deleted tenant out of its users, their account infos and the counters', async () => {
  const appId = await createApp({}, ['t1']);
  for (const [email, tenantIds] of [
    ['both@x.com', ['public', 't1']],
    ['only@x.com', ['t1']],
  ] as const) {
    const res = await importUser(appId, {
      loginMethods: [{ recipeId: 'emailpassword', email, tenantIds, plainTextPassword: 'tenant-pass-1' }],
    });
    expect(res.status, res.text).toBe(200);
  }
  const count = async (path: string) => (await call('GET', `/appid-${appId}${path}`)).json.count;
  expect(await count('/t1/users/count')).toBe(2);
  await removeTenantFromUsers(baseTable, appId, 't1');
  expect(await count('/t1/users/count')).toBe(0);
  expect(await count('/public/users/count')).toBe(1);
  expect(await count('/public/users/count?includeAllTenants=true')).toBe(2);
  const listed = await call('GET', `/appid-${appId}/t1/users`);
  expect(listed.json.users).toEqual([]);
  // The email is free in t1 again.
  const again = await importUser(appId, {
    loginMethods: [
      { recipeId: 'emailpassword', email: 'only@x.com', tenantIds: ['t1'], plainTextPassword: 'tenant-pass-1' },
    ],
  });
  expect(again.status, again.text).toBe(200);
});
