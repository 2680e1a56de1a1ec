/**
 * Property-based fuzzing of the inputs a hostile or careless importer controls, through the real
 * handlers against DynamoDB Local: the import payload (single import), the staging body, and the
 * query parameters (and prefixes) of the GET endpoints. No input may answer a 5xx, and an input
 * that is refused leaves nothing behind: no user, no staged row, no counter.
 *
 * Each run imports or stages into an app of its own; one scan at the end checks what every app
 * holds, so the runs stay cheap.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { createImportWorker } from '#functions/workers/import-worker/handler.js';
import { hostileStrings } from '../helpers/hostile-strings.js';
import { call, epUser, listAll, sqsEvent, stagedCount, useBulkTestFile } from './bulk-support.js';

const FILE_PREFIX = `fz${Math.random().toString(36).slice(2, 7)}`;
let appCounter = 0;

const BCRYPT = '$2a$04$abcdefghijklmnopqrstuu5XwPGRwEj1m5dc8x1fFLhzmkmRkp4qC';
const BCRYPT_20 = '$2a$20$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe';
const ARGON2_T1000 = `$argon2id$v=19$m=16,t=1000,p=1$${'A'.repeat(22)}$${'B'.repeat(43)}`;
const PLAIN = 'fuzz-Plain-password';

useBulkTestFile([PLAIN, BCRYPT_20, ARGON2_T1000]);

// ------------------------------------------------------------------------------------------------
// Hostile values

const hostileString = hostileStrings(
  [
    ['x', 3000],
    ['中', 3000],
    ['🙂', 3000],
  ],
  ['public', 'PUBLIC', ' t1 ', 'İ'.repeat(300)],
);
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e308, -1e308, 2 ** 31, 2 ** 31 - 1, -(2 ** 31), 2 ** 53, 2 ** 63, -1, 0, 0.5, 1e-320, 30),
);
const nested = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
};
const hostileObject = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 400 }).map(nested) },
  { weight: 1, arbitrary: fc.integer({ min: 340_000, max: 360_000 }).map((n) => ({ text: 'm'.repeat(n) })) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 20_000 })
      .map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))),
  },
);
const anyValue = fc.oneof(
  hostileString,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  hostileObject,
  fc.array(hostileString, { maxLength: 3 }),
);

const email = fc.oneof(
  { weight: 5, arbitrary: fc.nat({ max: 50 }).map((n) => `user${n}@example.com`) },
  { weight: 1, arbitrary: fc.nat({ max: 300 }).map((n) => `${'e'.repeat(n)}@x.io`) },
);
const tenantIds = fc.constantFrom(['public'], ['t1'], ['public', 't1'], [' T1 ']);
const common = {
  tenantIds,
  isVerified: fc.boolean(),
  isPrimary: fc.boolean(),
  timeJoinedInMSSinceEpoch: fc.nat({ max: 1_700_000_000_000 }),
};
const optional = { requiredKeys: ['recipeId' as const] };

/** Login methods as an importer would send them, of each recipe. */
const plausibleLoginMethod = fc.oneof(
  fc.record(
    {
      recipeId: fc.constant('emailpassword'),
      email,
      passwordHash: fc.constantFrom(BCRYPT, BCRYPT_20, ARGON2_T1000),
      hashingAlgorithm: fc.constantFrom('BCRYPT', 'argon2'),
      ...common,
    },
    { requiredKeys: ['recipeId', 'email', 'passwordHash', 'hashingAlgorithm'] },
  ),
  fc.record(
    { recipeId: fc.constant('emailpassword'), email, plainTextPassword: fc.constant(PLAIN), ...common },
    {
      requiredKeys: ['recipeId', 'email', 'plainTextPassword'],
    },
  ),
  fc.record(
    {
      recipeId: fc.constant('thirdparty'),
      email,
      thirdPartyId: fc.constantFrom('google', 'github'),
      thirdPartyUserId: fc.nat({ max: 1000 }).map(String),
      ...common,
    },
    { requiredKeys: ['recipeId', 'email', 'thirdPartyId', 'thirdPartyUserId'] },
  ),
  fc.record(
    {
      recipeId: fc.constant('passwordless'),
      email,
      phoneNumber: fc.constantFrom('+14155552671', '+44 20 7946 0000'),
      ...common,
    },
    optional,
  ),
);

/** A plausible object with some of its fields replaced or added with anything. */
function mutated<T extends object>(plausible: fc.Arbitrary<T>, fields: readonly string[]): fc.Arbitrary<T> {
  const edits = fc.array(fc.tuple(fc.constantFrom(...fields), anyValue), { minLength: 1, maxLength: 2 });
  return fc.oneof(
    { weight: 2, arbitrary: plausible },
    {
      weight: 1,
      arbitrary: fc.tuple(plausible, edits).map(([value, changes]) => ({ ...value, ...Object.fromEntries(changes) })),
    },
  );
}

const loginMethod = mutated(plausibleLoginMethod, [
  'recipeId',
  'email',
  'passwordHash',
  'hashingAlgorithm',
  'plainTextPassword',
  'thirdPartyId',
  'thirdPartyUserId',
  'phoneNumber',
  'tenantIds',
  'isVerified',
  'isPrimary',
  'timeJoinedInMSSinceEpoch',
]);

const totpDevice = mutated(
  fc.record(
    {
      secretKey: fc.constantFrom('JBSWY3DPEHPK3PXP', 'K'.repeat(300)),
      period: hostileNumber,
      skew: fc.nat({ max: 3 }),
      deviceName: fc.constantFrom('phone', 'd'.repeat(300)),
    },
    { requiredKeys: ['secretKey'] },
  ),
  ['secretKey', 'period', 'skew', 'deviceName'],
);

const importUserPayload = mutated(
  fc.record(
    {
      externalUserId: fc.oneof(
        fc.nat({ max: 1000 }).map((n) => `ext-${n}`),
        fc.integer({ min: 0, max: 3000 }).map((n) => 'x'.repeat(n)),
      ),
      userMetadata: fc.oneof(
        {
          weight: 3,
          arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
        },
        { weight: 1, arbitrary: hostileObject },
      ),
      userRoles: fc.array(fc.record({ role: fc.constantFrom('admin', 'nope'), tenantIds }), { maxLength: 2 }),
      totpDevices: fc.array(totpDevice, { maxLength: 2 }),
      loginMethods: fc.array(loginMethod, { minLength: 1, maxLength: 3 }),
    },
    { requiredKeys: ['loginMethods'] },
  ),
  ['externalUserId', 'userMetadata', 'userRoles', 'totpDevices', 'loginMethods'],
);

type Payload = typeof importUserPayload extends fc.Arbitrary<infer T> ? T : never;

/** A user every app of this file imports (the fuzzed payloads' type is narrower than the wire's). */
const valid = (n: number, prefix: string) =>
  epUser(n, { externalUserId: `${prefix}-${n}` }, prefix) as unknown as Payload;

// ------------------------------------------------------------------------------------------------
// Apps and what they hold

/** An app of this file with MFA and account linking, a role `admin` and a tenant `t1`. */
async function freshApp(): Promise<string> {
  const appId = `${FILE_PREFIX}-${appCounter++}`;
  const app = await call('PUT', '/recipe/multitenancy/app/v2', {
    body: { appId, coreConfig: { mfa_enabled: true, account_linking_enabled: true } },
  });
  expect(app.status, app.text).toBe(200);
  const role = await call('PUT', `/appid-${appId}/recipe/role`, { body: { role: 'admin' } });
  const tenant = await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, { body: { tenantId: 't1' } });
  expect([role.status, tenant.status]).toEqual([200, 200]);
  return appId;
}

/** The sort keys each app of this file holds outside its own partition (tenants, roles): one scan. */
async function itemsByApp(): Promise<Map<string, string[]>> {
  const byApp = new Map<string, string[]>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await getDocumentClient().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'begins_with(PK, :p)',
        ExpressionAttributeValues: { ':p': `APP#${FILE_PREFIX}-` },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const [, appId, ...rest] = String(item.PK).split('#');
      if (rest.length === 0) continue;
      // A keyless staging request's own record, freed once answered (docs/bulk-import.md "Without a
      // key"): bookkeeping that expires with its TTL, not something the request left of its users.
      if (item.entityType === 'IDEMPOTENT_REQUEST' && item.state === 'FREE') continue;
      const list = byApp.get(appId as string) ?? [];
      list.push(`${item.PK} ${item.SK}`);
      byApp.set(appId as string, list);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return byApp;
}

const outcomes: { appId: string; accepted: boolean; what: string }[] = [];
const worker = createImportWorker();

function expectNo5xx(res: { status: number; text: string }, what: string): void {
  expect(res.status, `${what} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
}

describe('fuzzing', () => {
  it('the import payload (POST /bulk-import/import): never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(importUserPayload, async (payload) => {
        const appId = await freshApp();
        const res = await call('POST', `/appid-${appId}/bulk-import/import`, { body: payload });
        expectNo5xx(res, 'import');
        if (res.status !== 200) expect(res.json?.errors, res.text).toEqual(expect.any(Array));
        outcomes.push({ appId, accepted: res.status === 200, what: 'import' });
      }),
      // Valid users too, whatever the random draw: the check of what refused requests left behind
      // below needs accepted requests to compare with.
      { numRuns: 120, examples: [0, 1, 2, 3].map((n): [Payload] => [valid(n, 'valid')]) },
    );
  });

  it('the staging body (POST /bulk-import/users): never a 5xx; what is staged imports or fails with a reason, never an error', async () => {
    const body = fc.oneof(
      { weight: 4, arbitrary: fc.record({ users: fc.array(importUserPayload, { minLength: 1, maxLength: 4 }) }) },
      { weight: 1, arbitrary: fc.record({ users: fc.oneof(anyValue, fc.array(anyValue, { maxLength: 3 })) }) },
      { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), anyValue, { maxKeys: 3 }) },
    );
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (payload, gzip) => {
        const appId = await freshApp();
        const res = await call('POST', `/appid-${appId}/bulk-import/users`, { body: payload, gzip });
        expectNo5xx(res, 'staging');
        const accepted = res.status === 200 && Array.isArray(res.json?.users);
        outcomes.push({ appId, accepted, what: 'staging' });
        if (!accepted) return;
        // The worker imports each staged user or fails it with a reason (a conflict, E0xx); an
        // error a retry would not fix ("Import failed: …") means staging accepted what could
        // never import.
        const ids = (await listAll(appId, 'NEW')).map((row) => row.id as string);
        expect(await worker(sqsEvent(appId, ids))).toEqual({ batchItemFailures: [] });
        for (const row of await listAll(appId, 'FAILED')) {
          expect(row.errorMessage, JSON.stringify(payload).slice(0, 500)).not.toMatch(/^Import failed/);
        }
        expect(await stagedCount(appId, 'NEW')).toBe(0);
      }),
      {
        numRuns: 60,
        examples: [0, 1, 2, 3].map((n): [{ users: Payload[] }, boolean] => [
          { users: [valid(n, 'staged'), valid(n + 10, 'staged')] },
          n % 2 === 0,
        ]),
      },
    );
  });

  it('a refused import or staging request left nothing behind: no user, no staged row, no counter', async () => {
    const held = await itemsByApp();
    const refused = outcomes.filter((o) => !o.accepted);
    const accepted = outcomes.filter((o) => o.accepted);
    // Both kinds occurred, or the fuzzing above tested little.
    expect(refused.length).toBeGreaterThan(10);
    expect(accepted.length).toBeGreaterThan(3);
    for (const { appId, what } of refused) expect(held.get(appId) ?? [], `${what} into ${appId}`).toEqual([]);
    for (const { appId, what } of accepted)
      expect((held.get(appId) ?? []).length, `${what} into ${appId}`).toBeGreaterThan(0);
  });

  it('the query parameters and prefixes of the GET endpoints: never a 5xx', async () => {
    const appId = await freshApp();
    const token = fc.oneof(
      hostileString,
      fc
        .tuple(hostileString, fc.oneof(fc.nat().map(String), hostileString))
        .map(([id, time]) => Buffer.from(`${id};${time}`).toString('base64')),
    );
    const value = fc.oneof(
      hostileString,
      hostileNumber.map(String),
      token,
      fc.constantFrom('true', 'false', 'NEW', 'FAILED', 'DESC', 'emailpassword,thirdparty'),
    );
    const endpoints: [string, string[]][] = [
      ['/users', ['limit', 'timeJoinedOrder', 'paginationToken', 'includeRecipeIds']],
      ['/users/count', ['includeRecipeIds', 'includeAllTenants']],
      ['/users/by-accountinfo', ['email', 'phoneNumber', 'thirdPartyId', 'thirdPartyUserId', 'doUnionOfAccountInfo']],
      ['/user/id', ['userId']],
      ['/recipe/userid/map', ['userId', 'userIdType']],
      ['/bulk-import/users', ['status', 'limit', 'paginationToken']],
      ['/bulk-import/users/count', ['status']],
      ['/recipe/user/metadata', ['userId']],
      ['/recipe/role/permissions', ['role']],
      ['/recipe/role/users', ['role']],
      ['/recipe/user/roles', ['userId']],
      ['/recipe/totp/device/list', ['userId']],
      ['/recipe/multitenancy/tenant/v2', []],
      ['/recipe/roles', []],
      ['/apiversion', []],
    ];
    const prefix = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(`/appid-${appId}`, `/appid-${appId}/t1`, `/appid-${appId}/public`, '') },
      { weight: 1, arbitrary: hostileString.map((s) => `/appid-${encodeURIComponent(s)}`) },
      { weight: 1, arbitrary: hostileString.map((s) => `/appid-${appId}/${encodeURIComponent(s)}`) },
    );
    const request = fc
      .constantFrom(...endpoints)
      .chain(([path, names]) =>
        fc.tuple(
          prefix,
          fc.constant(path),
          fc.record(Object.fromEntries(names.map((n) => [n, value])), { requiredKeys: [] }),
          fc.dictionary(fc.string({ maxLength: 5 }), hostileString, { maxKeys: 2 }),
        ),
      );
    await fc.assert(
      fc.asyncProperty(request, async ([pre, path, query, extra]) => {
        const qs = new URLSearchParams({ ...extra, ...(query as Record<string, string>) }).toString();
        const url = `${pre}${path}${qs ? `?${qs}` : ''}`;
        expectNo5xx(await call('GET', url), `GET ${url.slice(0, 200)}`);
      }),
      { numRuns: 400 },
    );
  });
});
