/**
 * The import worker's group path on DynamoDB Local: a batch's rows are claimed together and its
 * valid users imported together (one transaction, one update per counter item). What a user of the
 * core sees must be exactly what the one-by-one path gives: the same users, items, counts and
 * per-user failures.
 */
import { describe, expect, it } from 'vitest';
import { importUserGroup } from '#functions/domain/import/import-user.js';
import { storesOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { createImportWorker } from '#functions/workers/import-worker/handler.js';
import {
  appItems,
  BCRYPT_HASH,
  call,
  createApp,
  createRole,
  epUser,
  importUser,
  listAll,
  signIn,
  sqsEvent,
  stage,
  stagedCount,
  useBulkTestFile,
  userCount,
} from './bulk-support.js';

const PLAIN = 'group-Plain-pw-1';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPGROUP';

// Staging sends messages; this file invokes the worker itself and nobody consumes the queue.
useBulkTestFile([BCRYPT_HASH, PLAIN, TOTP_SECRET]);

/** Staged ids in request order (the list is newest first; staging gives one createdAt, so sort by email). */
async function stagedIds(appId: string): Promise<string[]> {
  const rows = await listAll(appId, 'NEW');
  return rows
    .sort((a, b) => String(a.loginMethods[0].email).localeCompare(String(b.loginMethods[0].email)))
    .map((r) => r.id as string);
}

const mixedUsers = () => [
  epUser(1, {}, 'mix'),
  {
    externalUserId: 'ext-mix-2',
    userMetadata: { plan: 'pro' },
    userRoles: [{ role: 'admin', tenantIds: ['public', 't1'] }],
    totpDevices: [{ secretKey: TOTP_SECRET, deviceName: 'phone' }],
    loginMethods: [
      { recipeId: 'emailpassword', email: 'mix2@example.com', plainTextPassword: PLAIN, tenantIds: ['public', 't1'] },
    ],
  },
  epUser(3, { userMetadata: { n: 3 } }, 'mix'),
  {
    loginMethods: [
      {
        recipeId: 'thirdparty',
        email: 'mix4@example.com',
        thirdPartyId: 'google',
        thirdPartyUserId: 'g-4',
        tenantIds: ['t1'],
      },
    ],
  },
  epUser(5, { userRoles: [{ role: 'admin', tenantIds: ['public'] }] }, 'mix'),
];

/** What the app stores, with generated ids and timestamps taken out: comparable across two apps. */
async function shape(appId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const item of await appItems(appId)) {
    // Counters and the primary-users guard are bookkeeping shared by the app's users; the staging
    // groups' markers belong to the staging request (one per shard its users fell in), not the import.
    const kindOf = String(item.entityType);
    if (kindOf.endsWith('COUNTER') || kindOf === 'PRIMARY_GUARD' || kindOf === 'IDEMPOTENT_CHUNK') continue;
    // Ids differ between the apps: user ids, and the random ids of the staged credentials' data keys.
    const sk = item.entityType === 'BULK_IMPORT_DATA_KEY' ? 'KEY ID' : String(item.SK).replace(/[0-9a-f-]{36}/g, 'ID');
    const kind = `${item.entityType} ${sk}`;
    out[kind] = (out[kind] ?? 0) + 1;
  }
  return out;
}

async function tenantCount(appId: string, tenantAndQuery: string): Promise<number> {
  const [tenantId, query] = tenantAndQuery.split('?');
  const res = await call('GET', `/appid-${appId}/${tenantId}/users/count${query ? `?${query}` : ''}`);
  expect(res.status, res.text).toBe(200);
  return res.json.count as number;
}

/** The real worker, remembering how many users each group write imported (to prove the path ran). */
function observedWorker() {
  const groupImported: number[] = [];
  const worker = createImportWorker({
    importUserGroup: async (request) => {
      const result = await importUserGroup({ store: storesOf(baseTable).users }, request);
      groupImported.push(result.imported.size);
      return result;
    },
  });
  return { worker, groupImported };
}

describe('import worker, a batch imported together', () => {
  it('gives the same users, items and counts as importing the same users one message at a time', async () => {
    const { worker, groupImported } = observedWorker();
    const [grouped, single] = [
      await createApp({ mfa_enabled: true }, ['t1'], 'grp'),
      await createApp({ mfa_enabled: true }, ['t1'], 'one'),
    ];
    for (const appId of [grouped, single]) {
      await createRole(appId, 'admin');
      expect((await stage(appId, mixedUsers())).status).toBe(200);
    }
    const groupedIds = await stagedIds(grouped);
    expect((await worker(sqsEvent(grouped, groupedIds))).batchItemFailures).toEqual([]);
    expect(groupImported).toEqual([5]);
    for (const id of await stagedIds(single)) {
      expect((await worker(sqsEvent(single, [id]))).batchItemFailures).toEqual([]);
    }

    for (const appId of [grouped, single]) {
      expect(await stagedCount(appId)).toBe(0);
      expect(await tenantCount(appId, 'public?includeAllTenants=true')).toBe(5);
      expect(await tenantCount(appId, 'public')).toBe(4);
      expect(await tenantCount(appId, 't1')).toBe(2);
      expect((await signIn(appId, 'mix2@example.com', PLAIN)).json.user.id).toBe('ext-mix-2');
      const roles = await call('GET', `/appid-${appId}/t1/recipe/user/roles?userId=ext-mix-2`);
      expect(roles.json.roles).toEqual(['admin']);
      const meta = await call('GET', `/appid-${appId}/recipe/user/metadata?userId=ext-mix-2`);
      expect(meta.json.metadata).toEqual({ plan: 'pro' });
    }
    expect(await shape(grouped)).toEqual(await shape(single));
  });

  it('fails exactly the conflicting users of a batch, imports the others, keeps every count exact', async () => {
    const { worker, groupImported } = observedWorker();
    const appId = await createApp({}, [], 'grp');
    // mix3 exists already (lazy import); mix4 is in the batch twice (two staged users).
    expect((await importUser(appId, epUser(3, {}, 'conf'))).status).toBe(200);
    const users = [1, 2, 3, 4, 4, 5].map((n) => epUser(n, {}, 'conf'));
    expect((await stage(appId, users)).status).toBe(200);
    const ids = (await listAll(appId, 'NEW')).map((r) => r.id as string);
    const result = await worker(sqsEvent(appId, ids));
    expect(result.batchItemFailures).toEqual([]);
    // The conflicting users left the group; the four others still went in together.
    expect(groupImported).toEqual([4]);

    const failed = await listAll(appId, 'FAILED');
    expect(failed.map((f) => f.loginMethods[0].email).sort()).toEqual(['conf3@example.com', 'conf4@example.com']);
    for (const f of failed)
      expect(f.errorMessage).toMatch(/^E003: A user with email conf[34]@example.com already exists/);
    expect(await stagedCount(appId, 'NEW')).toBe(0);
    expect(await stagedCount(appId, 'PROCESSING')).toBe(0);
    expect(await stagedCount(appId, 'FAILED')).toBe(2);
    expect(await userCount(appId)).toBe(5);
    for (const n of [1, 2, 4, 5]) {
      expect((await signIn(appId, `conf${n}@example.com`, 'any')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    }
  });

  it('a message repeated in a batch, or redelivered after the batch committed, imports its user once', async () => {
    const worker = createImportWorker();
    const appId = await createApp({}, [], 'grp');
    expect(
      (
        await stage(
          appId,
          [1, 2, 3].map((n) => epUser(n, {}, 'dup')),
        )
      ).status,
    ).toBe(200);
    const ids = (await listAll(appId, 'NEW')).map((r) => r.id as string);
    const batch = [...ids, ids[0] as string];
    expect((await worker(sqsEvent(appId, batch))).batchItemFailures).toEqual([]);
    expect((await worker(sqsEvent(appId, batch))).batchItemFailures).toEqual([]);
    expect(await userCount(appId)).toBe(3);
    expect(await stagedCount(appId)).toBe(0);
  });
});
