/**
 * `POST /bulk-import/users?dryRun=true` through the real handler against DynamoDB Local: the
 * staging request's validation, every conflict with the worker's own message, duplicates inside
 * the request, and nothing written.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appItems,
  BCRYPT_HASH,
  call,
  createApp,
  createRole,
  epUser,
  importUser,
  listAll,
  stage,
  stagedCount,
  useBulkTestFile,
  userCount,
  waitUntilDone,
  whilePipelineRuns,
} from './bulk-support.js';

const { pair } = useBulkTestFile([BCRYPT_HASH], 2);

const dryRun = (appId: string, users: unknown[], headers: Record<string, string> = {}) =>
  call('POST', `/appid-${appId}/bulk-import/users?dryRun=true`, { body: { users }, headers });

const ep = (email: string, extra: Record<string, unknown> = {}) => ({
  recipeId: 'emailpassword',
  email,
  passwordHash: BCRYPT_HASH,
  hashingAlgorithm: 'BCRYPT',
  ...extra,
});
const tp = (thirdPartyId: string, thirdPartyUserId: string, email: string, extra: Record<string, unknown> = {}) => ({
  recipeId: 'thirdparty',
  thirdPartyId,
  thirdPartyUserId,
  email,
  ...extra,
});
const pl = (fields: { email?: string; phoneNumber?: string }) => ({ recipeId: 'passwordless', ...fields });

/** Every item of the app, its own partition included, in key order. */
const everyItem = async (appId: string) =>
  (await appItems(appId, { ownPartition: true })).sort((a, b) => `${a.PK} ${a.SK}`.localeCompare(`${b.PK} ${b.SK}`));

/** An app with one user of each kind already imported. */
async function appWithUsers(): Promise<string> {
  const appId = await createApp({ account_linking_enabled: true }, [], 'dry');
  const existing = [
    { externalUserId: 'ext-taken', loginMethods: [ep('taken@example.com')] },
    { externalUserId: 'ext-taken-2', loginMethods: [ep('taken2@example.com')] },
    { loginMethods: [tp('google', 'g-1', 'social@example.com')] },
    { loginMethods: [pl({ phoneNumber: '+14155550100', email: 'pl@example.com' })] },
    {
      loginMethods: [ep('prim@example.com', { isPrimary: true }), tp('github', 'gh-1', 'prim@example.com')],
    },
  ];
  for (const user of existing) {
    const res = await importUser(appId, user);
    expect(res.status, res.text).toBe(200);
  }
  return appId;
}

/** Users that each meet one kind of conflict with the app (and one that meets two). */
const CONFLICTING = [
  { loginMethods: [ep('Taken@Example.com')] },
  { externalUserId: 'ext-taken', loginMethods: [ep('fresh1@example.com')] },
  { loginMethods: [tp('google', 'g-1', 'other@example.com')] },
  { loginMethods: [pl({ phoneNumber: '+1 415 555 0100' })] },
  { loginMethods: [pl({ email: 'PL@example.com' })] },
  { loginMethods: [pl({ email: 'prim@example.com' })] },
  { externalUserId: 'ext-taken-2', loginMethods: [ep('taken2@example.com')] },
  { externalUserId: 'fine-1', loginMethods: [ep('fine1@example.com')] },
];
const CONFLICTS = [
  { index: 0, errors: ['E003: A user with email taken@example.com already exists in emailpassword loginMethod.'] },
  { index: 1, externalUserId: 'ext-taken', errors: ['E031: A user with externalId ext-taken already exists'] },
  {
    index: 2,
    errors: [
      'E005: A user with thirdPartyId google and thirdPartyUserId g-1 already exists in thirdparty loginMethod.',
    ],
  },
  { index: 3, errors: ['E007: A user with phoneNumber +14155550100 already exists in passwordless loginMethod.'] },
  { index: 4, errors: ['E006: A user with email pl@example.com already exists in passwordless loginMethod.'] },
  { index: 5, errors: ['E027: there is a conflicting account info'] },
  {
    index: 6,
    externalUserId: 'ext-taken-2',
    errors: [
      'E003: A user with email taken2@example.com already exists in emailpassword loginMethod.',
      'E031: A user with externalId ext-taken-2 already exists',
    ],
  },
];

describe('POST /bulk-import/users?dryRun=true', () => {
  it('answers an empty list for any app (the support probe) and keeps the empty staging answer', async () => {
    for (const appId of ['no-such-app', await createApp({}, [], 'dry')]) {
      const empty = await dryRun(appId, []);
      expect([empty.status, empty.json]).toEqual([200, { status: 'OK', dryRun: true, wouldImport: 0, conflicts: [] }]);
      const staged = await call('POST', `/appid-${appId}/bulk-import/users?dryRun=false`, { body: { users: [] } });
      expect([staged.status, staged.json]).toEqual([200, { status: 'OK' }]);
    }
  });

  it('validates exactly as staging does: the same 400 answers', async () => {
    const appId = await createApp({}, ['t1'], 'dry');
    const bodies: unknown[] = [
      {},
      { users: 'x' },
      { users: Array.from({ length: 10_001 }, () => ({})) },
      {
        users: [
          { externalUserId: 'id1' },
          { externalUserId: 'id1', userRoles: [{ role: 'r', tenantIds: ['public'] }] },
        ],
      },
      { users: [epUser(1, { loginMethods: [ep('a@example.com', { hashingAlgorithm: 'MD4' })] })] },
    ];
    for (const body of bodies) {
      const staging = await call('POST', `/appid-${appId}/bulk-import/users`, { body });
      const checked = await call('POST', `/appid-${appId}/bulk-import/users?dryRun=true`, { body });
      expect(staging.status).toBe(400);
      expect([checked.status, checked.contentType, checked.text]).toEqual([400, staging.contentType, staging.text]);
    }
    const unknown = await call('POST', '/appid-no-such-app/bulk-import/users?dryRun=true', { body: { users: [{}] } });
    expect(unknown.text).toMatch(/^AppId or tenantId not found => /);
    const tenant = await call('POST', `/appid-${appId}/t1/bulk-import/users?dryRun=true`, { body: { users: [{}] } });
    expect([tenant.status, tenant.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    expect(await stagedCount(appId)).toBe(0);
  });

  it('reports every conflict with the app, per kind, with the message the import writes', async () => {
    const appId = await appWithUsers();
    const res = await dryRun(appId, CONFLICTING);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ status: 'OK', dryRun: true, wouldImport: 1, conflicts: CONFLICTS });
  });

  it('the import then writes exactly those messages on the FAILED rows and imports the rest', async () => {
    const appId = await appWithUsers();
    const checked = (await dryRun(appId, CONFLICTING)).json;
    const staged = await stage(appId, CONFLICTING);
    expect(staged.status, staged.text).toBe(200);
    const ids: string[] = staged.json.users.map(
      (u: { loginMethods: { userId: string }[] }) => u.loginMethods[0]?.userId,
    );
    const before = await userCount(appId);
    await whilePipelineRuns(pair(), () => waitUntilDone(appId));
    const failed = new Map(
      (await listAll(appId, 'FAILED')).map((row) => [row.id as string, row.errorMessage as string]),
    );
    const expected = new Map<string, string>(
      checked.conflicts.map((c: { index: number; errors: string[] }) => [ids[c.index], c.errors.join(', ')]),
    );
    expect(failed).toEqual(expected);
    expect(await userCount(appId)).toBe(before + checked.wouldImport);
  });

  it('reports duplicates inside the request: later users get the message they would get once the first is imported', async () => {
    const appId = await createApp({ account_linking_enabled: true }, [], 'dry');
    const res = await dryRun(appId, [
      { loginMethods: [ep('new@example.com')] },
      { externalUserId: 'x1', loginMethods: [ep(' NEW@example.com ')] },
      { loginMethods: [tp('google', 'g-2', 'a@example.com')] },
      { loginMethods: [tp('google', 'g-2', 'b@example.com')] },
      { loginMethods: [pl({ phoneNumber: '+14155550199' })] },
      { loginMethods: [pl({ phoneNumber: '+1-415-555-0199' })] },
      { loginMethods: [ep('linked@example.com', { isPrimary: true }), tp('github', 'gh-9', 'linked@example.com')] },
      { loginMethods: [pl({ email: 'linked@example.com' })] },
      { loginMethods: [tp('google', 'g-2', 'c@example.com')] },
      // The same email in another recipe or tenant-free combination is no conflict.
      { loginMethods: [pl({ email: 'new@example.com' })] },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      status: 'OK',
      dryRun: true,
      wouldImport: 5,
      conflicts: [
        {
          index: 1,
          externalUserId: 'x1',
          errors: ['E003: A user with email new@example.com already exists in emailpassword loginMethod.'],
        },
        {
          index: 3,
          errors: [
            'E005: A user with thirdPartyId google and thirdPartyUserId g-2 already exists in thirdparty loginMethod.',
          ],
        },
        {
          index: 5,
          errors: ['E007: A user with phoneNumber +14155550199 already exists in passwordless loginMethod.'],
        },
        { index: 7, errors: ['E027: there is a conflicting account info'] },
        {
          index: 8,
          errors: [
            'E005: A user with thirdPartyId google and thirdPartyUserId g-2 already exists in thirdparty loginMethod.',
          ],
        },
      ],
    });
  });

  it('reports what the import refuses before writing: a primary user without account linking (E019)', async () => {
    const appId = await createApp({}, [], 'dry');
    const res = await dryRun(appId, [{ loginMethods: [ep('p@example.com', { isPrimary: true })] }, epUser(2)]);
    expect(res.json).toEqual({
      status: 'OK',
      dryRun: true,
      wouldImport: 1,
      conflicts: [
        {
          index: 0,
          errors: ['E019: Account linking feature is not enabled for this app. Please contact support to enable it.'],
        },
      ],
    });
  });

  it('writes nothing: no row, counter, marker or idempotency record — the app reads the same before and after', async () => {
    const appId = await appWithUsers();
    await createRole(appId, 'member');
    const before = await everyItem(appId);
    const users = [...CONFLICTING, ...Array.from({ length: 150 }, (_, i) => epUser(i, {}, 'nothing'))];
    const ok = await dryRun(appId, users, { 'idempotency-key': 'ignored-on-a-dry-run' });
    expect(ok.status).toBe(200);
    expect(ok.json.wouldImport).toBe(151);
    const invalid = await dryRun(appId, [{ loginMethods: [] }], { 'idempotency-key': 'ignored-on-a-dry-run' });
    expect([invalid.status, invalid.text]).toEqual([
      400,
      JSON.stringify({
        error: 'Data has missing or invalid fields. Please check the users field for more details.',
        users: [{ index: 0, errors: ['At least one loginMethod is required.'] }],
      }),
    ]);
    expect(invalid.contentType).toContain('application/json');
    // An invalid key is ignored too: a dry run reads it nowhere.
    expect((await dryRun(appId, users, { 'idempotency-key': ' ' })).status).toBe(200);
    expect(await everyItem(appId)).toEqual(before);
    // The key was not claimed: staging with it now stages.
    const staged = await call('POST', `/appid-${appId}/bulk-import/users`, {
      body: { users: [epUser(1, {}, 'after')] },
      headers: { 'idempotency-key': 'ignored-on-a-dry-run' },
    });
    expect(staged.status).toBe(200);
    expect(staged.headers['idempotency-replayed']).toBeUndefined();
  });

  it('dryRun values: true / false in any case, anything else is a 400, never a 5xx', async () => {
    const appId = await createApp({}, [], 'dry');
    const users = [epUser(1, {}, 'q')];
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom('true', 'TRUE', 'True', 'false', 'FALSE', '', '1', 'yes'),
          fc.string({ maxLength: 20 }),
        ),
        async (value) => {
          const res = await call('POST', `/appid-${appId}/bulk-import/users?dryRun=${encodeURIComponent(value)}`, {
            body: { users },
          });
          const lower = value.toLowerCase();
          if (lower === 'true') expect(res.json).toMatchObject({ status: 'OK', dryRun: true, wouldImport: 1 });
          else if (lower === 'false') expect(res.json.users).toHaveLength(1);
          else expect([res.status, res.text]).toEqual([400, 'dryRun must be true or false']);
        },
      ),
      { numRuns: 40 },
    );
  });
});
