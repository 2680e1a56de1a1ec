/**
 * Property-based fuzzing of third-party sign-in-up and the account-linking routes through the real
 * handlers against DynamoDB Local: whatever the body or query, no answer is a 5xx; a 200 is one of
 * the reference's statuses; a 4xx is plain text. Real user ids (standalone, primary, linked,
 * mapped) are mixed into the hostile values so the properties also reach the linking rules.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { hostileStrings } from '../helpers/hostile-strings.js';
import { call, createApp } from './users-support.js';

let appId: string;
let known: string[] = [];

const hostileString = hostileStrings(
  [
    ['x', 3000],
    ['中', 400],
  ],
  ['İ'.repeat(300), 'google', 'public'],
);
const anyValue = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
);
/** A known user id by index (the ids exist only once the users are made, after the arbitraries are built). */
const userId = fc.oneof(
  { weight: 3, arbitrary: fc.nat({ max: 3 }).map((i) => known[i] as string) },
  { weight: 1, arbitrary: hostileString },
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const STATUSES = new Set([
  'OK',
  'EMAIL_CHANGE_NOT_ALLOWED_ERROR',
  'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
  'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
  'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
  'INPUT_USER_IS_NOT_A_PRIMARY_USER',
]);

function expectAnswer(res: Awaited<ReturnType<typeof call>>, what: unknown) {
  expect(res.status, `${JSON.stringify(what)} → ${res.status} ${res.text}`).toBeLessThan(500);
  if (res.status === 200) expect(STATUSES.has(res.json?.status), res.text).toBe(true);
  else expect(res.contentType).toMatch(/^text\/plain/);
}

beforeAll(async () => {
  appId = await createApp({ account_linking_enabled: true }, ['t1'], 'fzal');
  const base = `/appid-${appId}`;
  const signUp = async (email: string) =>
    (await call('POST', `${base}/public/recipe/signup`, { body: { email, password: 'fuzz-pass-1' } })).json.user.id;
  const a = await signUp('a@example.com');
  const b = await signUp('b@example.com');
  const tp = await call('POST', `${base}/public/recipe/signinup`, {
    body: { thirdPartyId: 'google', thirdPartyUserId: 'g1', email: { id: 'a@example.com', isVerified: true } },
  });
  await call('POST', `${base}/recipe/accountlinking/user/primary`, { body: { recipeUserId: a } });
  await call('POST', `${base}/recipe/accountlinking/user/link`, {
    body: { recipeUserId: tp.json.user.id, primaryUserId: a },
  });
  await call('POST', `${base}/recipe/userid/map`, { body: { superTokensUserId: b, externalUserId: 'ext-b' } });
  known = [a, b, tp.json.user.id, 'ext-b'];
});

describe('no 5xx on the third-party and account-linking routes', () => {
  it('POST /<t>/recipe/signinup with hostile bodies', async () => {
    const email = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record(
          {
            id: maybe(fc.oneof(hostileString, fc.constantFrom('a@example.com', 'b@example.com'))),
            isVerified: maybe(anyValue),
          },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: anyValue },
    );
    const body = fc.record(
      {
        thirdPartyId: fc.oneof(fc.constantFrom('google', 'github'), anyValue),
        thirdPartyUserId: fc.oneof(fc.constantFrom('g1', 'g2'), anyValue),
        email,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('public', 't1', 'nope'), async (payload, tenant) => {
        expectAnswer(await call('POST', `/appid-${appId}/${tenant}/recipe/signinup`, { body: payload }), payload);
      }),
      { numRuns: 150 },
    );
  });

  it('POST primary, link and unlink with hostile bodies', async () => {
    const body = fc.record(
      { recipeUserId: fc.oneof(userId, anyValue), primaryUserId: fc.oneof(userId, anyValue) },
      { requiredKeys: [] },
    );
    const path = fc.constantFrom(
      '/recipe/accountlinking/user/primary',
      '/recipe/accountlinking/user/link',
      '/recipe/accountlinking/user/unlink',
    );
    await fc.assert(
      fc.asyncProperty(path, body, async (p, payload) => {
        expectAnswer(await call('POST', `/appid-${appId}${p}`, { body: payload }), { p, payload });
      }),
      { numRuns: 200 },
    );
  });

  it('GET the checks with hostile queries', async () => {
    const query = fc.record(
      { recipeUserId: maybe(fc.oneof(userId, hostileString)), primaryUserId: maybe(fc.oneof(userId, hostileString)) },
      { requiredKeys: [] },
    );
    const path = fc.constantFrom('/recipe/accountlinking/user/primary/check', '/recipe/accountlinking/user/link/check');
    await fc.assert(
      fc.asyncProperty(path, query, async (p, q) => {
        const defined = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as Record<
          string,
          string
        >;
        const qs = new URLSearchParams(defined).toString();
        expectAnswer(await call('GET', `/appid-${appId}${p}?${qs}`), { p, q });
      }),
      { numRuns: 200 },
    );
  });

  it('raw bodies that are not JSON objects', async () => {
    const raw = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.jsonValue().map((v) => JSON.stringify(v)),
    );
    const path = fc.constantFrom(
      '/public/recipe/signinup',
      '/recipe/accountlinking/user/primary',
      '/recipe/accountlinking/user/link',
      '/recipe/accountlinking/user/unlink',
    );
    await fc.assert(
      fc.asyncProperty(path, raw, async (p, rawBody) => {
        expectAnswer(await call('POST', `/appid-${appId}${p}`, { rawBody }), { p, rawBody });
      }),
      { numRuns: 100 },
    );
  });
});
