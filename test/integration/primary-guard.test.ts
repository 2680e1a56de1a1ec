/**
 * The app's primary-users guard on DynamoDB Local (functions/storage/users/guard.ts): while an app
 * has never had a primary user, a batch of users who are not primary is imported with one check
 * of the guard per transaction instead of one per account info — and E027 ("there is a conflicting
 * account info") still comes exactly when a primary user holds an imported user's account info:
 * with the guard set, with a primary user created after the guard was read, and for an app whose
 * users were written before it had a guard.
 */
import { describe, expect, it } from 'vitest';
import { importUserGroup } from '#functions/domain/import/import-user.js';
import type { UserStore } from '#functions/domain/users/ports.js';
import { storesOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { createImportWorker } from '#functions/workers/import-worker/handler.js';
import {
  appItems,
  BCRYPT_HASH,
  createApp,
  epUser,
  importUser,
  listAll,
  sqsEvent,
  stage,
  stagedCount,
  useBulkTestFile,
  userCount,
} from './bulk-support.js';

useBulkTestFile([BCRYPT_HASH]);

const users = storesOf(baseTable).users;
const E027 = 'E027: there is a conflicting account info';

/** A primary user holding `email` (its emailpassword and GitHub login methods, linked). */
const primaryHolding = (email: string, n: number) => ({
  loginMethods: [
    { recipeId: 'emailpassword', email, passwordHash: BCRYPT_HASH, hashingAlgorithm: 'BCRYPT', isPrimary: true },
    { recipeId: 'thirdparty', thirdPartyId: 'github', thirdPartyUserId: `gh-${n}`, email },
  ],
});
/** A passwordless user with `email`: no uniqueness conflict with an emailpassword user, only E027. */
const passwordless = (email: string) => ({ loginMethods: [{ recipeId: 'passwordless', email }] });

async function guardOf(appId: string): Promise<Record<string, unknown> | undefined> {
  return (await appItems(appId)).find((item) => item.entityType === 'PRIMARY_GUARD');
}

/** The worker, its group path on `store`, remembering how many users each group write imported. */
function workerOn(store: UserStore) {
  const groupImported: number[] = [];
  const worker = createImportWorker({
    importUserGroup: async (request) => {
      const result = await importUserGroup({ store }, request);
      groupImported.push(result.imported.size);
      return result;
    },
  });
  return { worker, groupImported };
}

async function stageAndImport(appId: string, staged: unknown[], store: UserStore = users) {
  expect((await stage(appId, staged)).status).toBe(200);
  const ids = (await listAll(appId, 'NEW')).map((r) => r.id as string);
  const { worker, groupImported } = workerOn(store);
  expect((await worker(sqsEvent(appId, ids))).batchItemFailures).toEqual([]);
  expect(await stagedCount(appId, 'NEW')).toBe(0);
  expect(await stagedCount(appId, 'PROCESSING')).toBe(0);
  return groupImported;
}

describe('the primary-users guard', () => {
  it('an app that never had a primary user: its batch is imported together, checked by the guard', async () => {
    const appId = await createApp({ account_linking_enabled: true }, [], 'grd');
    expect(
      await stageAndImport(
        appId,
        [1, 2, 3].map((n) => epUser(n, {}, 'grd')),
      ),
    ).toEqual([3]);
    expect(await userCount(appId)).toBe(3);
    expect(await guardOf(appId)).toMatchObject({ primaries: false });
    // A primary user created afterwards sets the guard in its own write.
    expect((await importUser(appId, primaryHolding('boss@example.com', 1))).status).toBe(200);
    expect(await guardOf(appId)).toMatchObject({ primaries: true });
    expect(await users.primaryCheckMode(appId)).toBe('each');
  });

  it('an app with a primary user: the batch checks every account info, and the conflicting user fails E027', async () => {
    const appId = await createApp({ account_linking_enabled: true }, [], 'grd');
    expect((await importUser(appId, primaryHolding('prim@example.com', 2))).status).toBe(200);
    expect(await guardOf(appId)).toMatchObject({ primaries: true });
    const imported = await stageAndImport(appId, [
      passwordless('prim@example.com'),
      epUser(4, {}, 'grd'),
      epUser(5, {}, 'grd'),
    ]);
    expect(imported).toEqual([2]);
    const failed = await listAll(appId, 'FAILED');
    expect(failed.map((f) => f.errorMessage)).toEqual([E027]);
    expect(await userCount(appId)).toBe(3);
  });

  it('a primary user created after the guard was read: the batch goes one by one, E027 as before', async () => {
    const appId = await createApp({ account_linking_enabled: true }, [], 'grd');
    expect(await users.primaryCheckMode(appId)).toBe('guard');
    expect((await importUser(appId, primaryHolding('late@example.com', 3))).status).toBe(200);
    // The group path read the guard before that primary user was written.
    const stale: UserStore = { ...users, primaryCheckMode: async () => 'guard' };
    const imported = await stageAndImport(
      appId,
      [passwordless('late@example.com'), epUser(6, {}, 'grd'), epUser(7, {}, 'grd')],
      stale,
    );
    // The guarded write was refused as a whole; every user then got what it gets alone.
    expect(imported).toEqual([0]);
    expect((await listAll(appId, 'FAILED')).map((f) => f.errorMessage)).toEqual([E027]);
    expect(await userCount(appId)).toBe(3);
  });

  it('an app whose users were written before it had a guard checks every account info, and sets none', async () => {
    const appId = await createApp({ account_linking_enabled: true }, [], 'grd');
    // Lazy imports write no guard (one user: nothing to share), as data written before the guard.
    expect((await importUser(appId, epUser(8, {}, 'grd'))).status).toBe(200);
    expect(await users.primaryCheckMode(appId)).toBe('each');
    expect(await guardOf(appId)).toBeUndefined();
  });
});
