/**
 * Property-based fuzzing of the password-reset, account-update and email-verification endpoints
 * through the real handlers against DynamoDB Local: arbitrary bodies (the fields they read, with
 * hostile values, and stray fields), arbitrary queries, prefixes and tokens. No input may answer a
 * 5xx; every answer is the core's 200 with a status, or a 4xx with a plain-text message.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreReply } from '../helpers/core-client.js';
import { hostileStrings } from '../helpers/hostile-strings.js';
import { call, captureLogs, createApp, expectNoSecrets, importUser } from './users-support.js';

const logs = captureLogs();
const PASSWORD = 'fuzz-accounts-Password';
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, [PASSWORD]);
});

let appId: string;
const ids: string[] = [];

beforeAll(async () => {
  appId = await createApp({ account_linking_enabled: true }, ['t1'], 'fz-acc');
  for (const [i, extra] of [{}, { externalUserId: 'fz-ext' }, { externalUserId: 'fz-ext-2' }].entries()) {
    const res = await importUser(appId, {
      ...extra,
      loginMethods: [{ recipeId: 'emailpassword', email: `fz${i}@example.com`, plainTextPassword: PASSWORD }],
    });
    expect(res.status, res.text).toBe(200);
    ids.push(res.json.user.id);
  }
});

const hostileString = hostileStrings(
  [
    ['x', 2000],
    ['中', 2000],
  ],
  ['token', 'İ'.repeat(200), 'fz-ext', 'fz1@example.com'],
);
const idLike = fc.oneof(
  hostileString,
  fc.constantFrom('fz-ext', 'fz-ext-2', 'nobody'),
  fc.nat({ max: 2 }).map((i) => ids[i] ?? ''),
);
const anyValue = fc.oneof(
  hostileString,
  idLike,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 2 }),
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

const POSTS: [method: string, path: string, fields: string[]][] = [
  ['POST', '/recipe/user/password/reset/token', ['userId', 'email']],
  ['POST', '/recipe/user/password/reset/token/consume', ['token']],
  ['PUT', '/recipe/user', ['recipeUserId', 'userId', 'email', 'password']],
  ['POST', '/recipe/user/email/verify/token', ['userId', 'email']],
  ['POST', '/recipe/user/email/verify', ['method', 'token']],
  ['POST', '/recipe/user/email/verify/token/remove', ['userId', 'email']],
  ['POST', '/recipe/user/email/verify/remove', ['userId', 'email']],
];

describe('the account endpoints under arbitrary input', () => {
  it('bodies: never a 5xx', async () => {
    const request = fc
      .constantFrom(...POSTS)
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
      { numRuns: 500 },
    );
  });

  it('raw bodies of any text: never a 5xx', async () => {
    const raw = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.jsonValue().map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS), raw, async ([method, path], text) => {
        const res = await call(method, `/appid-${appId}${path}`, { rawBody: text });
        expectCoreAnswer(res, `${method} ${path} ${text.slice(0, 100)}`);
      }),
      { numRuns: 150 },
    );
  });

  it('queries of the is-verified endpoint: never a 5xx', async () => {
    const value = fc.oneof(hostileString, idLike);
    await fc.assert(
      fc.asyncProperty(
        prefix(),
        fc.record({ userId: value, email: value }, { requiredKeys: [] }),
        fc.dictionary(fc.string({ maxLength: 5 }), hostileString, { maxKeys: 2 }),
        async (pre, query, extra) => {
          const qs = new URLSearchParams({ ...extra, ...query }).toString();
          const url = `${pre}/recipe/user/email/verify${qs ? `?${qs}` : ''}`;
          expectCoreAnswer(await call('GET', url), `GET ${url.slice(0, 200)}`);
        },
      ),
      { numRuns: 250 },
    );
  });
});
