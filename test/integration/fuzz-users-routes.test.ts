/**
 * Property-based fuzzing of the tenant-membership, id-mapping and permission routes and of the
 * user search (docs/users.md) through the real handlers against DynamoDB Local: arbitrary bodies
 * (the fields they read, with hostile values, and stray fields) at every CDI version, arbitrary
 * search queries. No input may answer a 5xx; every answer is the core's 200 with a status, or a
 * 4xx with a plain-text message; and a search answers only users the search matches.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CoreReply } from '../helpers/core-client.js';
import { hostileStrings } from '../helpers/hostile-strings.js';
import { call, createApp, createRole, importUser } from './users-support.js';

let appId: string;
const ids: string[] = [];

beforeAll(async () => {
  appId = await createApp({ account_linking_enabled: true }, ['t1'], 'fz-users');
  await createRole(appId, 'fz-role');
  const users = [
    {
      externalUserId: 'fz-ext',
      loginMethods: [{ recipeId: 'emailpassword', email: 'fz0@example.com', plainTextPassword: 'fz-Password-1' }],
    },
    { loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155550123', email: 'Fz1@Example.com' }] },
    {
      loginMethods: [
        {
          recipeId: 'thirdparty',
          thirdPartyId: 'google',
          thirdPartyUserId: 'G#1',
          email: 'fz2@x.io',
          tenantIds: ['public', 't1'],
        },
      ],
    },
  ];
  for (const body of users) {
    const res = await importUser(appId, body);
    expect(res.status, res.text).toBe(200);
    ids.push(res.json.user.id);
  }
});

const hostileString = hostileStrings(
  [
    ['x', 2000],
    ['中', 2000],
    [';', 300],
  ],
  ['fz-ext', 'fz-role', 'İ'.repeat(200), 'SUPERTOKENS', 'EXTERNAL', 'ANY', 'google::g#1', '+1', 'fz', 'x.io'],
);
const idLike = fc.oneof(
  hostileString,
  fc.constantFrom('fz-ext', 'nobody'),
  fc.nat({ max: 2 }).map((i) => ids[i] ?? ''),
);
const anyValue = fc.oneof(
  hostileString,
  idLike,
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

const prefix = () =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(`/appid-${appId}`, `/appid-${appId}/public`, `/appid-${appId}/t1`) },
    { weight: 1, arbitrary: fc.constantFrom(`/appid-${appId}/nope`, '/appid-missing-app', '') },
  );

function expectCoreAnswer(res: CoreReply, what: string) {
  expect(res.status, `${what} → ${res.status} ${res.text.slice(0, 200)}`).toBeLessThan(500);
  if (res.status === 200) expect(typeof res.json?.status, what).toBe('string');
  else expect(res.text.length, what).toBeGreaterThan(0);
}

const ROUTES: [method: string, path: string, fields: string[]][] = [
  ['POST', '/recipe/multitenancy/tenant/user', ['recipeUserId', 'userId']],
  ['POST', '/recipe/multitenancy/tenant/user/remove', ['recipeUserId', 'userId']],
  ['POST', '/recipe/userid/map', ['superTokensUserId', 'externalUserId', 'externalUserIdInfo', 'force']],
  ['POST', '/recipe/userid/map/remove', ['userId', 'userIdType', 'force']],
  ['PUT', '/recipe/userid/external-user-id-info', ['userId', 'userIdType', 'externalUserIdInfo']],
  ['POST', '/recipe/role/permissions/remove', ['role', 'permissions']],
];

describe('the users routes under arbitrary input', () => {
  it('bodies: never a 5xx', async () => {
    const request = fc
      .constantFrom(...ROUTES)
      .chain(([method, path, fields]) =>
        fc.tuple(
          fc.constant(method),
          prefix(),
          fc.constant(path),
          fc.record(Object.fromEntries(fields.map((f) => [f, anyValue])), { requiredKeys: [] }),
          fc.dictionary(fc.string({ maxLength: 5 }), anyValue, { maxKeys: 2 }),
          fc.constantFrom(undefined, '3.0', '4.0', '5.4'),
        ),
      );
    await fc.assert(
      fc.asyncProperty(request, async ([method, pre, path, fields, extra, cdi]) => {
        const body = { ...extra, ...fields };
        const headers: Record<string, string> = cdi ? { 'cdi-version': cdi } : {};
        const res = await call(method, `${pre}${path}`, { body, headers });
        expectCoreAnswer(res, `${method} ${pre}${path} ${JSON.stringify(body).slice(0, 200)}`);
      }),
      { numRuns: 300 },
    );
  });

  it('search and permission queries: never a 5xx, and a search answers only what it matches', async () => {
    const value = fc.oneof(hostileString, fc.constantFrom('fz', 'x.io', '+1', 'google', 'GOOGLE::g#', ' Fz1 ;'));
    await fc.assert(
      fc.asyncProperty(
        prefix(),
        fc.record(
          {
            email: value,
            phone: value,
            provider: value,
            limit: value,
            timeJoinedOrder: value,
            includeRecipeIds: value,
          },
          { requiredKeys: [] },
        ),
        async (pre, query) => {
          const url = `${pre}/users?${new URLSearchParams(query).toString()}`;
          const res = await call('GET', url);
          expect(res.status, `GET ${url.slice(0, 200)} → ${res.text.slice(0, 200)}`).toBeLessThan(500);
          if (res.status !== 200 || !(query.email ?? query.phone ?? query.provider)) return;
          const terms = (raw: string | undefined) =>
            raw
              ?.split(';')
              .map((t) => t.toLowerCase().trim())
              .filter((t) => t !== '');
          const emails = terms(query.email);
          for (const user of res.json.users as { loginMethods: Record<string, any>[] }[]) {
            const matched = user.loginMethods.some(
              (lm) =>
                !emails?.length ||
                emails.some((t) => lm.email?.startsWith(t) || lm.email?.slice(lm.email.indexOf('@') + 1).startsWith(t)),
            );
            expect(matched, url).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
    await fc.assert(
      fc.asyncProperty(prefix(), fc.option(hostileString, { nil: undefined }), async (pre, permission) => {
        const qs = permission === undefined ? '' : `?${new URLSearchParams({ permission })}`;
        expectCoreAnswer(await call('GET', `${pre}/recipe/permission/roles${qs}`), `permission ${qs.slice(0, 100)}`);
      }),
      { numRuns: 100 },
    );
  });
});
