/**
 * What operations of the bulk-import pipeline read from DynamoDB, recorded with the bench's call
 * recorder against DynamoDB Local; the writes that skip a read stay conditional (a concurrent
 * change still wins).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { appPartition } from '#functions/storage/keys/apps.js';
import { idempotencyPartition } from '#functions/storage/keys/idempotency.js';
import { STAGED_SK, stagedUserPartition } from '#functions/storage/keys/staging.js';
import { storesOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { handler as dlqHandler } from '#functions/workers/dlq-consumer/handler.js';
import { createImportWorker } from '#functions/workers/import-worker/handler.js';
import {
  BCRYPT_HASH,
  call,
  createApp,
  epUser,
  listAll,
  readsNaming,
  readsOf,
  sqsEvent,
  stage,
  stagedCount,
  useBulkTestFile,
} from './bulk-support.js';

useBulkTestFile([BCRYPT_HASH]);

const staging = () => storesOf(baseTable).staging;
const rowItem = async (appId: string, id: string) =>
  (
    await getDocumentClient().send(
      new GetCommand({
        TableName: tableName(),
        Key: { PK: stagedUserPartition(appId, id), SK: STAGED_SK },
        ConsistentRead: true,
      }),
    )
  ).Item;

async function stageOne(prefix: string): Promise<{ appId: string; id: string }> {
  const appId = await createApp({}, [], prefix);
  const staged = await stage(appId, [epUser(1, {}, prefix)]);
  expect(staged.status, staged.text).toBe(200);
  return { appId, id: staged.json.users[0].userId as string };
}

describe('marking a staged row FAILED', () => {
  it('writes from the row its caller read, reading nothing; a row changed since that read is left as it is', async () => {
    const { appId, id } = await stageOne('fail');
    const seen = await staging().get(appId, id);
    expect(seen?.status).toBe('NEW');
    // A worker claims the row after it was read.
    const claimed = await staging().claim(appId, id, Date.now());
    expect(claimed?.status).toBe('PROCESSING');

    const stale = await readsOf(async () => {
      expect(await staging().fail(seen!, 'stale', Date.now())).toBe(false);
    });
    expect(stale).toEqual([]);
    expect(await stagedCount(appId, 'PROCESSING')).toBe(1);
    expect(await stagedCount(appId, 'FAILED')).toBe(0);
    expect((await rowItem(appId, id))?.credentials).toBeInstanceOf(Uint8Array);

    const current = await readsOf(async () => {
      expect(await staging().fail(claimed!, 'Import failed: nope', Date.now())).toBe(true);
    });
    expect(current).toEqual([]);
    const [failed] = await listAll(appId, 'FAILED');
    expect(failed).toMatchObject({ id, status: 'FAILED', errorMessage: 'Import failed: nope' });
    expect(await stagedCount(appId, 'PROCESSING')).toBe(0);
    expect(await stagedCount(appId)).toBe(1);
    // The sealed credentials are erased with the status change; the clear JSON carries none.
    const item = await rowItem(appId, id);
    expect(item?.credentials).toBeUndefined();
    expect(item?.dataKey).toBeUndefined();
    expect(item?.user).not.toContain(BCRYPT_HASH);
    expect(JSON.parse(item?.user as string).loginMethods[0].email).toBe('fail1@example.com');
    // FAILED already: nothing to do.
    expect(await staging().fail({ ...claimed!, status: 'FAILED' }, 'again', Date.now())).toBe(false);
  });
});

describe('one dead letter', () => {
  it('reads its staged row once, then turns it FAILED with the last error', async () => {
    const { appId, id } = await stageOne('dlq');
    await staging().claim(appId, id, Date.now());
    await staging().noteTransientError(appId, id, 'Error: storage unavailable', Date.now());

    const reads = await readsOf(async () => {
      const out = await dlqHandler(sqsEvent(appId, [id]));
      expect(out.batchItemFailures).toEqual([]);
    });
    expect(readsNaming(reads, stagedUserPartition(appId, id))).toEqual(['GetItem STAGED']);
    // Besides: the app's public tenant (its configuration says which table holds its rows).
    expect(readsNaming(reads, appPartition(appId))).toEqual(['GetItem TENANT#public']);
    expect(reads).toHaveLength(2);
    expect(reads.reduce((sum, r) => sum + r.readUnits, 0)).toBe(2);

    const [failed] = await listAll(appId, 'FAILED');
    expect(failed).toMatchObject({
      id,
      errorMessage: 'Import failed after repeated attempts: Error: storage unavailable',
    });
    expect(await stagedCount(appId, 'PROCESSING')).toBe(0);
  });
});

describe('one replay of an Idempotency-Key request', () => {
  it('reads the key record once and its answer once', async () => {
    const appId = await createApp({}, [], 'replay');
    const send = () =>
      call('POST', `/appid-${appId}/bulk-import/users`, {
        body: { users: [epUser(1, {}, 'replay'), epUser(2, {}, 'replay')] },
        headers: { 'idempotency-key': 'replay-key' },
      });
    const first = await send();
    expect(first.status, first.text).toBe(200);

    let again: Awaited<ReturnType<typeof send>> | undefined;
    const reads = await readsOf(async () => {
      again = await send();
    });
    expect(again?.status).toBe(200);
    expect(again?.headers['idempotency-replayed']).toBe('true');
    expect(again?.text).toBe(first.text);
    expect(readsNaming(reads, idempotencyPartition(appId, 'replay-key'))).toEqual([
      'GetItem REQUEST',
      expect.stringMatching(/^Query ANSWER#[0-9a-f-]{36}#$/),
    ]);
    // Besides: the app's public tenant, for the API key check and the configuration.
    expect(readsNaming(reads, appPartition(appId))).toEqual(['GetItem TENANT#public']);
    expect(reads).toHaveLength(3);
    expect(await stagedCount(appId)).toBe(2);
  });
});

describe('one worker batch', () => {
  it("reads the app's tenants once (its public tenant among them), and again in the next batch", async () => {
    const appId = await createApp({}, ['t1', 't2'], 'batch');
    const inTenant = (n: number, tenantId: string) =>
      epUser(n, { loginMethods: [{ ...epUser(n, {}, 'batch').loginMethods[0], tenantIds: [tenantId] }] });
    const first = await stage(
      appId,
      Array.from({ length: 4 }, (_, n) => inTenant(n, 't1')),
    );
    const second = await stage(appId, [inTenant(10, 't2'), inTenant(11, 't2')]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const idsOf = (staged: typeof first) => staged.json.users.map((u: { userId: string }) => u.userId);
    const worker = createImportWorker();
    const usersIn = async (tenantId: string) => {
      const res = await call('GET', `/appid-${appId}/${tenantId}/users/count`);
      expect(res.status, res.text).toBe(200);
      return res.json.count as number;
    };

    const reads = await readsOf(async () => {
      expect((await worker(sqsEvent(appId, idsOf(first)))).batchItemFailures).toEqual([]);
    });
    // One Query of the tenants (the public one among them gives the configuration), one of the roles.
    expect(readsNaming(reads, appPartition(appId)).sort()).toEqual(['Query ROLE#', 'Query TENANT#']);
    // Besides: the four rows in one consistent BatchGet, and the data key that sealed them; and,
    // at the app's first import, its primary-users guard (absent) and the app's user counters,
    // which let the import set it (functions/storage/users/guard.ts).
    expect(reads.map((r) => r.command).sort()).toEqual([
      'BatchGetItem',
      'BatchGetItem',
      'GetItem',
      'GetItem',
      'Query',
      'Query',
    ]);
    // 7 units for the batch; 17 for the guard's first reading, once per app (the guard is set then).
    expect(reads.reduce((sum, r) => sum + r.readUnits, 0)).toBe(24);
    expect(await usersIn('t1')).toBe(4);
    expect(await stagedCount(appId)).toBe(2);

    // Tenants may change between batches: the next batch reads them again and sees t2 gone.
    const removed = await call('POST', `/appid-${appId}/recipe/multitenancy/tenant/remove`, {
      body: { tenantId: 't2' },
    });
    expect(removed.status, removed.text).toBe(200);
    const next = await readsOf(async () => {
      expect((await worker(sqsEvent(appId, idsOf(second)))).batchItemFailures).toEqual([]);
    });
    expect(readsNaming(next, appPartition(appId)).sort()).toEqual(['Query ROLE#', 'Query TENANT#']);
    const failed = await listAll(appId, 'FAILED');
    expect(failed.map((f) => f.errorMessage)).toEqual([
      '[Invalid tenantId: t2 for emailpassword recipe.]',
      '[Invalid tenantId: t2 for emailpassword recipe.]',
    ]);
    expect(await stagedCount(appId, 'FAILED')).toBe(2);
    expect(await usersIn('t1')).toBe(4);
  });
});
