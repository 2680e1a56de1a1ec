/**
 * Property-based fuzzing of the configuration bodies — an app's and a tenant's coreConfig, a
 * third-party provider config, a role's permissions — with hostile sizes, depths and numbers,
 * through the real handlers against DynamoDB Local: no answer is a 5xx, and a refused request
 * leaves what a GET returns exactly as it was.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { call, captureLogs, createApp } from './bulk-support.js';

const logs = captureLogs();
afterAll(() => {
  logs.restore();
  expect(logs.lines.filter((line) => line.includes('"level":"error"'))).toEqual([]);
});

const hostileNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(1e200, -1e200, 1e308, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), 1e-130, 1e-131, 1e-320, 0, -0, 0.5, 1e125),
);
const sized = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 500_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 150_000 }).map((n) => '中'.repeat(n)) },
);
const nested = (depth: number, leaf: unknown): unknown => {
  let value: unknown = leaf;
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? { a: value } : [value];
  return value;
};
const hostileJson = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 60 }), hostileNumber).map(([d, n]) => nested(d, n)) },
  { weight: 1, arbitrary: hostileNumber },
  { weight: 1, arbitrary: sized },
  { weight: 1, arbitrary: fc.constantFrom({ '': 1 }, { a: { '': 'x' } }, [{ '': null }]) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 30_000 })
      .map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))),
  },
);

/** The first of every generated `api_keys`, sent with every request: an app that accepted keys still answers. */
const API_KEY = 'fuzz-config-api-key-0123456789';
const headers = { 'api-key': API_KEY };
/** Many API keys (each valid on its own): up to about 1 MB. */
const apiKeys = fc
  .tuple(fc.integer({ min: 1, max: 25_000 }), fc.nat({ max: 1_000 }))
  .map(([count, seed]) =>
    [API_KEY, ...Array.from({ length: count }, (_, i) => `key-${seed}-${i}`.padEnd(40, 'k'))].join(','),
  );
/** Mostly keys that exist with hostile values of their own type, sometimes anything at all. */
const coreConfig = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        refresh_token_validity: hostileNumber,
        access_token_dynamic_signing_key_update_interval: hostileNumber,
        access_token_signing_key_update_interval: hostileNumber,
        email_verification_token_lifetime: hostileNumber,
        api_keys: apiKeys,
        firebase_password_hashing_signer_key: sized,
        password_hashing_alg: fc.constantFrom('BCRYPT', 'ARGON2'),
      },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.oneof(fc.constantFrom('refresh_token_validity', 'api_keys', 'disable_telemetry'), fc.string()),
      fc.oneof(hostileNumber, sized, fc.boolean(), fc.constant(null), hostileJson),
      { maxKeys: 4 },
    ),
  },
);

function expectNo5xx(res: { status: number; text: string }, what: string): void {
  expect(res.status, `${what} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
}

async function tenantView(appId: string, tenantId: string) {
  const res = await call('GET', `/appid-${appId}/${tenantId}/recipe/multitenancy/tenant/v2`, { headers });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

describe('fuzzing the configuration bodies', () => {
  it('coreConfig of an app or a tenant: never a 5xx; a refusal changes nothing', async () => {
    const appId = await createApp({}, ['t1'], 'fzc');
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.boolean(), coreConfig, async (app, config) => {
        const tenantId = app ? 'public' : 't1';
        const before = await tenantView(appId, tenantId);
        const res = app
          ? await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId, coreConfig: config }, headers })
          : await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
              body: { tenantId, coreConfig: config },
              headers,
            });
        expectNo5xx(res, `coreConfig ${JSON.stringify(config).slice(0, 200)}`);
        if (res.status !== 200) {
          refused++;
          expect(res.text).toMatch(/^Invalid core config: /);
          expect(await tenantView(appId, tenantId)).toEqual(before);
        }
      }),
      { numRuns: 40 },
    );
    expect(refused).toBeGreaterThan(5);
  });

  it('a third-party provider config: never a 5xx; a refusal changes nothing', async () => {
    const appId = await createApp({}, ['t1'], 'fzp');
    const provider = fc.record(
      {
        thirdPartyId: fc.constantFrom('custom-a', 'custom-b', 'custom-c', 'google', ''),
        clients: fc.array(
          fc.record({ clientId: fc.oneof(sized, fc.constant('id')), clientSecret: sized, extra: hostileJson }),
          { maxLength: 2 },
        ),
        extra: hostileJson,
      },
      { requiredKeys: ['thirdPartyId'] },
    );
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(provider, fc.boolean(), async (config, skipValidation) => {
        const before = await tenantView(appId, 't1');
        const res = await call('PUT', `/appid-${appId}/t1/recipe/multitenancy/config/thirdparty`, {
          body: { config, skipValidation },
        });
        expectNo5xx(res, `provider ${JSON.stringify(config).slice(0, 200)}`);
        if (res.status !== 200) {
          refused++;
          expect(await tenantView(appId, 't1')).toEqual(before);
        }
      }),
      { numRuns: 40 },
    );
    expect(refused).toBeGreaterThan(5);
  });

  it("a role's permissions: never a 5xx; a refusal changes nothing", async () => {
    const appId = await createApp({}, [], 'fzr');
    const permissions = fc.oneof(
      fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 5 }),
      fc
        .tuple(fc.integer({ min: 1, max: 3_000 }), fc.integer({ min: 1, max: 255 }), fc.nat({ max: 1_000_000 }))
        .map(([count, length, seed]) =>
          Array.from({ length: count }, (_, i) => `${seed}-${i}-`.padEnd(length, 'p').slice(0, 255)),
        ),
      fc.array(fc.oneof(fc.integer(), fc.constant(null), fc.string()), { maxLength: 3 }),
    );
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('r1', 'r2'), permissions, async (role, perms) => {
        const before = (await call('GET', `/appid-${appId}/recipe/role/permissions?role=${role}`)).json;
        const res = await call('PUT', `/appid-${appId}/recipe/role`, { body: { role, permissions: perms } });
        expectNo5xx(res, `role with ${perms.length} permissions`);
        if (res.status !== 200) {
          refused++;
          expect((await call('GET', `/appid-${appId}/recipe/role/permissions?role=${role}`)).json).toEqual(before);
        }
      }),
      { numRuns: 30 },
    );
    expect(refused).toBeGreaterThan(3);
  });
});
