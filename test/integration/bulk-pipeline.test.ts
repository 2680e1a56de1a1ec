import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { importMessage } from '#functions/domain/bulk-import/message.js';
import { reconcileStagedUsers } from '#functions/domain/bulk-import/reconcile.js';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { STAGED_SK, stagedStatusIndexSortKey, stagedUserPartition } from '#functions/storage/keys/staging.js';
import { importPublisher } from '#functions/wiring/import-queue.js';
import { importBacklog, reconcilerDeps } from '#functions/wiring/reconciler.js';
import { storesOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { createImportWorker } from '#functions/workers/import-worker/handler.js';
import { handler as reconcilerHandler } from '#functions/workers/reconciler/handler.js';
import {
  BCRYPT_HASH,
  call,
  createApp,
  createRole,
  epUser,
  importUser,
  listAll,
  purgeQueue,
  signIn,
  sqsClient,
  stage,
  stagedCount,
  startPipeline,
  useBulkTestFile,
  userCount,
  waitFor,
  waitUntilDone,
} from './bulk-support.js';

const SECRETS = [BCRYPT_HASH, 'plain-Secret-pw-1', 'JBSWY3DPEHPK3PXPSECRET'];
const { pair } = useBulkTestFile(SECRETS, 2);

async function withPipeline<T>(run: () => Promise<T>, options: Parameters<typeof startPipeline>[1] = {}): Promise<T> {
  const pipeline = await startPipeline(pair(), options);
  try {
    return await run();
  } finally {
    await pipeline.stop();
  }
}

describe('import pipeline (BulkImportFlowTest, ProcessBulkImportUsersCronJobTest)', () => {
  it('imports a staged user (plain-text password, roles, metadata, TOTP) and deletes its row', async () => {
    const appId = await createApp({ mfa_enabled: true }, ['t1'], 'bulk');
    await createRole(appId, 'role1');
    const user = {
      externalUserId: 'ext-1',
      userMetadata: { a: 1 },
      userRoles: [{ role: 'role1', tenantIds: ['public', 't1'] }],
      totpDevices: [{ secretKey: 'JBSWY3DPEHPK3PXPSECRET', deviceName: 'phone' }],
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'Plain@Example.com ',
          plainTextPassword: 'plain-Secret-pw-1',
          tenantIds: ['public', 't1'],
        },
      ],
    };
    const res = await stage(appId, [user]);
    expect(res.status, res.text).toBe(200);
    expect(await stagedCount(appId, 'NEW')).toBe(1);
    await withPipeline(() => waitUntilDone(appId));
    expect(await stagedCount(appId)).toBe(0);
    expect(await userCount(appId)).toBe(1);
    const signin = await signIn(appId, 'plain@example.com', 'plain-Secret-pw-1');
    expect(signin.json.status).toBe('OK');
    expect(signin.json.user.id).toBe('ext-1');
    const roles = await call('GET', `/appid-${appId}/t1/recipe/user/roles?userId=ext-1`);
    expect(roles.json.roles).toEqual(['role1']);
  });

  it('fails exactly the duplicates (E003/E027) and imports the others', async () => {
    const appId = await createApp({}, [], 'bulk');
    const users = [epUser(1), epUser(2), epUser(3), epUser(4), epUser(1), epUser(2)];
    expect((await stage(appId, users)).status).toBe(200);
    await withPipeline(() => waitUntilDone(appId));
    const failed = await listAll(appId, 'FAILED');
    expect(failed).toHaveLength(2);
    for (const f of failed) expect(f.errorMessage).toMatch(/^(E003|E027):/);
    expect(await userCount(appId)).toBe(4);
  });

  it('lazy-imports 90 users, then bulk-stages the same 100: 90 FAILED, 100 users in total', async () => {
    const appId = await createApp({}, [], 'bulk');
    const users = Array.from({ length: 100 }, (_, i) => epUser(i));
    for (const u of users.slice(0, 90)) expect((await importUser(appId, u)).status).toBe(200);
    expect((await stage(appId, users)).status).toBe(200);
    await withPipeline(() => waitUntilDone(appId));
    expect(await stagedCount(appId, 'FAILED')).toBe(90);
    for (const f of await listAll(appId, 'FAILED')) expect(f.errorMessage).toMatch(/^(E003|E027):/);
    expect(await userCount(appId)).toBe(100);
  });

  it('marks a user whose external id is taken FAILED with E031', async () => {
    const appId = await createApp({}, [], 'bulk');
    expect((await importUser(appId, epUser(1, { externalUserId: 'existing-external-user-id' }))).status).toBe(200);
    await stage(appId, [epUser(2, { externalUserId: 'existing-external-user-id' })]);
    await withPipeline(() => waitUntilDone(appId));
    const [failed] = await listAll(appId, 'FAILED');
    expect(failed.errorMessage).toBe('E031: A user with externalId existing-external-user-id already exists');
    expect(await userCount(appId)).toBe(1);
  });

  it('re-validates against the current state: a tenant removed after staging → FAILED [..]', async () => {
    const appId = await createApp({}, ['t1'], 'bulk');
    await stage(appId, [
      epUser(1, {}, 'x'),
      { ...epUser(2), loginMethods: [{ ...epUser(2).loginMethods[0], tenantIds: ['t1'] }] },
    ]);
    const removed = await call('POST', `/appid-${appId}/recipe/multitenancy/tenant/remove`, {
      body: { tenantId: 't1' },
    });
    expect(removed.status, removed.text).toBe(200);
    await withPipeline(() => waitUntilDone(appId));
    const failed = await listAll(appId, 'FAILED');
    expect(failed.map((f) => f.errorMessage)).toEqual(['[Invalid tenantId: t1 for emailpassword recipe.]']);
    expect(await userCount(appId)).toBe(1);
  });

  it('every message delivered twice (and re-sent by the reconciler) → no duplicate user, no false FAILED', async () => {
    const appId = await createApp({}, [], 'bulk');
    const users = Array.from({ length: 40 }, (_, i) => epUser(i, {}, 'dup'));
    const staged = await stage(appId, users);
    const ids = staged.json.users.map((u: any) => u.userId as string);
    await importPublisher.publish(ids.map((id: string) => importMessage(appId, id)));
    await withPipeline(
      async () => {
        await reconcileStagedUsers(reconcilerDeps(), Date.now() + 1);
        await waitUntilDone(appId);
      },
      { concurrency: 6 },
    );
    expect(await stagedCount(appId)).toBe(0);
    expect(await userCount(appId)).toBe(40);
  });

  it('a poison message ends in the DLQ and its row FAILED with the last error; its neighbours import', async () => {
    const appId = await createApp({}, [], 'bulk');
    const staged = await stage(appId, [epUser(1, {}, 'p'), epUser(2, {}, 'p'), epUser(3, {}, 'p')]);
    const poisonId = staged.json.users[1].userId as string;
    const { importUser: realImport, importUserGroup: realGroup } = await import(
      '#functions/domain/import/import-user.js'
    );
    const userStore = storesOf(baseTable).users;
    const poison = () => new Error(`storage unavailable near ${BCRYPT_HASH}`);
    // Storage fails whenever this user is written, alone or in a group.
    const worker = createImportWorker({
      importUser: async (request) => {
        if (request.user.id === poisonId) throw poison();
        return realImport({ store: userStore }, request);
      },
      importUserGroup: async (request) => {
        if (request.users.some((u) => u.id === poisonId)) throw poison();
        return realGroup({ store: userStore }, request);
      },
    });
    await withPipeline(() => waitUntilDone(appId, 60_000), { worker });
    const [failed] = await listAll(appId, 'FAILED');
    expect(failed.id).toBe(poisonId);
    expect(failed.errorMessage).toContain('storage unavailable');
    expect(failed.errorMessage).not.toContain(BCRYPT_HASH);
    expect(await userCount(appId)).toBe(2);
  });

  it('a row left PROCESSING with no message in flight is picked up by the reconciler and imported once', async () => {
    const appId = await createApp({}, [], 'bulk');
    const staged = await stage(appId, [epUser(1, {}, 'c'), epUser(2, {}, 'c')]);
    const ids = staged.json.users.map((u: any) => u.userId as string);
    // A worker claimed the first row and was killed; the queue (in memory) lost every message.
    await storesOf(baseTable).staging.claim(appId, ids[0], Date.now());
    await purgeQueue(pair().queueUrl);
    expect(await stagedCount(appId, 'PROCESSING')).toBe(1);
    await withPipeline(async () => {
      const { resent } = await reconcileStagedUsers(reconcilerDeps(), Date.now() + 1);
      expect(resent).toBeGreaterThanOrEqual(2);
      await waitUntilDone(appId);
    });
    expect(await userCount(appId)).toBe(2);
    expect(await stagedCount(appId)).toBe(0);
    // Idempotent: nothing is left to re-send.
    const again = await reconcileStagedUsers(reconcilerDeps(), Date.now() + 1);
    expect(again.resent).toBe(0);
  });

  it('the scheduled reconciler leaves messages waiting in a backlog alone and re-sends only rows whose message is gone', async () => {
    await purgeQueue(pair().queueUrl);
    const appId = await createApp({}, [], 'bulk');
    const staged = await stage(appId, [epUser(1, {}, 'q'), epUser(2, {}, 'q'), epUser(3, {}, 'q')]);
    const ids: string[] = staged.json.users.map((u: any) => u.userId as string);
    const rowKey = (id: string) => ({ PK: stagedUserPartition(appId, id), SK: STAGED_SK });
    // As if staged and sent `ago` ms ago (created and sent at the same moment, as staging does).
    const backdate = (id: string, ago: number) =>
      getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: rowKey(id),
          UpdateExpression: 'SET createdAt = :t, sentAt = :t, GSI1SK = :sk',
          ExpressionAttributeValues: { ':t': Date.now() - ago, ':sk': stagedStatusIndexSortKey(Date.now() - ago, id) },
        }),
      );
    const sentAt = async (id: string) =>
      (
        await getDocumentClient().send(
          new GetCommand({ TableName: tableName(), Key: rowKey(id), ConsistentRead: true }),
        )
      ).Item?.sentAt as number;
    const HOUR = 3_600_000;
    for (const id of ids) await backdate(id, HOUR);
    // Rows sent before the last 30 min whose message was lost, once the queues are empty.
    const reconcile = () => reconcilerHandler({ detail: { resendAfterMs: 30 * 60_000 } });

    // Their three messages still wait in the queue (a backlog): nothing is sent twice.
    const before = Date.now();
    await reconcile();
    for (const id of ids) expect(await sentAt(id)).toBeLessThan(before - HOUR / 2);
    // A row sent more than 6 h ago is re-sent even while the queue is busy.
    await backdate(ids[0]!, 7 * HOUR);
    await reconcile();
    expect(await sentAt(ids[0]!)).toBeGreaterThanOrEqual(before);
    for (const id of ids.slice(1)) expect(await sentAt(id)).toBeLessThan(before - HOUR / 2);
    // The queue loses its messages (a local runtime restarted): both queues are empty, so every
    // row sent more than 30 min ago is re-sent, and a row sent since is not.
    await purgeQueue(pair().queueUrl);
    expect(await importBacklog.isDrained()).toBe(true);
    const lost = Date.now();
    await backdate(ids[0]!, HOUR);
    const fresh = await stage(appId, [epUser(4, {}, 'q')]);
    const freshId = fresh.json.users[0].userId as string;
    const freshSentAt = await sentAt(freshId);
    await purgeQueue(pair().queueUrl);
    await reconcile();
    for (const id of ids) expect(await sentAt(id)).toBeGreaterThanOrEqual(lost);
    expect(await sentAt(freshId)).toBe(freshSentAt);
    await withPipeline(async () => {
      await waitFor(async () => (await userCount(appId)) === 3);
    });
    expect(await stagedCount(appId, 'NEW')).toBe(1);
    expect(await userCount(appId)).toBe(3);
  });

  it('sees the backlog: messages waiting, in flight and in the DLQ keep the queues from counting as empty', async () => {
    await purgeQueue(pair().queueUrl);
    await purgeQueue(pair().dlqUrl);
    expect(await importBacklog.isDrained()).toBe(true);
    await sqsClient().send(new SendMessageCommand({ QueueUrl: pair().dlqUrl, MessageBody: '{}' }));
    expect(await importBacklog.isDrained()).toBe(false);
    await purgeQueue(pair().dlqUrl);
    await sqsClient().send(new SendMessageCommand({ QueueUrl: pair().queueUrl, MessageBody: '{}' }));
    expect(await importBacklog.isDrained()).toBe(false);
    const received = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: pair().queueUrl, WaitTimeSeconds: 1 }),
    );
    expect(received.Messages).toHaveLength(1);
    // Received but not deleted: a worker is handling it.
    expect(await importBacklog.isDrained()).toBe(false);
    await sqsClient().send(
      new DeleteMessageCommand({ QueueUrl: pair().queueUrl, ReceiptHandle: received.Messages![0]!.ReceiptHandle }),
    );
    expect(await importBacklog.isDrained()).toBe(true);
  });

  it('the reconciler forgets an app once nothing is pending and no request staged for a while; staging marks it again', async () => {
    const appId = await createApp({}, [], 'bulk');
    const marker = { PK: `APP#${appId}#BULKAPP`, SK: 'PENDING' };
    const read = async () =>
      (await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: marker, ConsistentRead: true })))
        .Item;
    const reconcile = () => reconcileStagedUsers(reconcilerDeps(), Date.now() - 60_000);
    expect(await read()).toBeUndefined();
    expect((await stage(appId, [epUser(1, {}, 'm')])).status).toBe(200);
    expect(await read()).toMatchObject({ appId });
    await withPipeline(() => waitUntilDone(appId));
    // Nothing pending, but the marker is recent: a request may still be writing rows.
    await reconcile();
    expect(await read()).toBeDefined();
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: marker,
        UpdateExpression: 'SET stagedAt = :old',
        ExpressionAttributeValues: { ':old': Date.now() - 3_600_000 },
      }),
    );
    await reconcile();
    expect(await read()).toBeUndefined();
    expect((await stage(appId, [epUser(2, {}, 'm')])).status).toBe(200);
    expect(await read()).toBeDefined();
    const removed = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId } });
    expect(removed.json.status).toBe('OK');
    expect(await read()).toBeUndefined();
  });
});
