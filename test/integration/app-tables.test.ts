/**
 * Each app its own table or a shared one (`dynamodb_table_name`): app A on a table of its own,
 * B on the base table, C and D sharing a third. Every path — single import, staging, the worker,
 * the DLQ consumer, the reconciler, sign-in, roles, metadata, counts, lists, app deletion — keeps
 * each app's items in its table, and a direct read of every table shows them only there.
 */
import './bulk-support.js';
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importMessage } from '#functions/domain/bulk-import/message.js';
import { reconcileStagedUsers } from '#functions/domain/bulk-import/reconcile.js';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { ENV } from '#functions/shared/env.js';
import { reconcilerDeps } from '#functions/wiring/reconciler.js';
import { handler as dlqConsumer } from '#functions/workers/dlq-consumer/handler.js';
import type { ImportQueuePair } from '../../bin/local/sqs.js';
import {
  call,
  captureLogs,
  createRole,
  expectNoSecrets,
  importUser,
  listAll,
  purgeQueue,
  signIn,
  stage,
  stagedCount,
  startPipeline,
  useOwnQueues,
  waitUntilDone,
} from './bulk-support.js';

const logs = captureLogs();
const run = randomUUID().slice(0, 8);
const TABLE_A = `apptables-a-${run}`;
const TABLE_CD = `apptables-cd-${run}`;
const BULK_USERS = 200;

type Item = Record<string, unknown>;

interface App {
  readonly id: string;
  /** The table its coreConfig names; undefined = the base table. */
  readonly table: string | undefined;
}

let pair: ImportQueuePair;
let apps: { a: App; b: App; c: App; d: App };
const tableOf = (app: App) => app.table ?? tableName();

const password = (app: App, n: number) => `pw-${app.id}-${n}`;
const bulkUser = (app: App, n: number) => ({
  externalUserId: `ext-${n}`,
  userMetadata: { n, app: app.id },
  userRoles: [{ role: 'member', tenantIds: ['public'] }],
  // The same emails in every app: the apps sharing a table stay apart by their key prefix.
  loginMethods: [{ recipeId: 'emailpassword', email: `user${n}@example.com`, plainTextPassword: password(app, n) }],
});

async function createApp(prefix: string, table: string | undefined): Promise<App> {
  const id = `${prefix}-${run}`;
  const res = await call('PUT', '/recipe/multitenancy/app/v2', {
    body: { appId: id, coreConfig: table === undefined ? {} : { dynamodb_table_name: table } },
  });
  expect(res.status, res.text).toBe(200);
  return { id, table };
}

/** Every item of a table (test-only Scan: proves where the writes went). */
async function scan(table: string): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const out = await getDocumentClient().send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey }));
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

const belongsTo = (appId: string) => (item: Item) =>
  item.PK === `APP#${appId}` || String(item.PK).startsWith(`APP#${appId}#`);
const keysOf = (items: readonly Item[]) => items.map((i) => `${i.PK} ${i.SK}`).sort();
/** What the base table keeps for an app whatever its table: its tenants and its staging marker. */
const baseTableOwn = (item: Item) =>
  (String(item.PK).match(/^APP#[^#]+$/) !== null && String(item.SK).startsWith('TENANT#')) ||
  (String(item.PK).endsWith('#BULKAPP') && item.SK === 'PENDING');

/** The items of each app in each table. */
async function itemsByTable(): Promise<Map<string, Map<string, Item[]>>> {
  const tables = [tableName(), TABLE_A, TABLE_CD];
  const out = new Map<string, Map<string, Item[]>>();
  for (const table of tables) {
    const items = await scan(table);
    out.set(table, new Map(Object.values(apps).map((app) => [app.id, items.filter(belongsTo(app.id))])));
  }
  return out;
}

function sqsEvent(bodies: readonly unknown[]): SQSEvent {
  return {
    Records: bodies.map((body, i) => ({
      messageId: `m-${i}`,
      receiptHandle: `r-${i}`,
      body: JSON.stringify(body),
      attributes: {} as never,
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: pair.queueArn,
      awsRegion: 'local',
    })),
  };
}

async function withPipeline<T>(work: () => Promise<T>): Promise<T> {
  const pipeline = await startPipeline(pair);
  try {
    return await work();
  } finally {
    await pipeline.stop();
  }
}

beforeAll(async () => {
  pair = await useOwnQueues(5);
  // As the local runtime does: the first app that names a table creates it.
  process.env[ENV.createTables] = 'true';
  apps = {
    a: await createApp('tables-a', TABLE_A),
    b: await createApp('tables-b', undefined),
    c: await createApp('tables-c', TABLE_CD),
    d: await createApp('tables-d', TABLE_CD),
  };
  delete process.env[ENV.createTables];
});

afterAll(() => {
  logs.restore();
  expectNoSecrets(
    logs.lines,
    Object.values(apps ?? {}).flatMap((app) => [password(app, 0), password(app, 1), password(app, BULK_USERS)]),
  );
});

describe('apps on their own, the base and a shared table', () => {
  it('creates the tables the apps name, from the shared definition', async () => {
    for (const table of [TABLE_A, TABLE_CD]) {
      const { Table } = await getDocumentClient().send(new DescribeTableCommand({ TableName: table }));
      expect(Table?.KeySchema?.map((k) => k.AttributeName)).toEqual(['PK', 'SK']);
      expect(Table?.GlobalSecondaryIndexes?.map((g) => g.IndexName).sort()).toEqual(['GSI1', 'GSI2', 'GSI3']);
    }
  });

  it('imports, stages, signs in, counts and lists each app in its own table', async () => {
    for (const app of Object.values(apps)) {
      await createRole(app.id, 'member');
      const single = await importUser(app.id, bulkUser(app, 0));
      expect(single.status, single.text).toBe(200);
      const users = Array.from({ length: BULK_USERS }, (_, i) => bulkUser(app, i + 1));
      const staged = await stage(app.id, users, { gzip: true });
      expect(staged.status, staged.text).toBe(200);
      expect(await stagedCount(app.id, 'NEW')).toBe(BULK_USERS);
    }
    await withPipeline(async () => {
      for (const app of Object.values(apps)) await waitUntilDone(app.id, 180_000);
    });
    for (const app of Object.values(apps)) {
      expect(await stagedCount(app.id)).toBe(0);
      const count = await call('GET', `/appid-${app.id}/public/users/count`);
      expect(count.json, app.id).toEqual({ status: 'OK', count: BULK_USERS + 1 });
      const ids = new Set<string>();
      let token: string | undefined;
      do {
        const page = await call(
          'GET',
          `/appid-${app.id}/public/users?limit=100${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`,
        );
        expect(page.status, page.text).toBe(200);
        for (const user of page.json.users) ids.add(user.id);
        token = page.json.nextPaginationToken;
      } while (token);
      expect(ids.size, app.id).toBe(BULK_USERS + 1);
      const members = await call('GET', `/appid-${app.id}/public/recipe/role/users?role=member`);
      expect(members.json.users, app.id).toHaveLength(BULK_USERS + 1);
      const metadata = await call('GET', `/appid-${app.id}/recipe/user/metadata?userId=ext-7`);
      expect(metadata.json, app.id).toEqual({ status: 'OK', metadata: { n: 7, app: app.id } });
      for (const n of [0, 1, BULK_USERS]) {
        const ok = await signIn(app.id, `user${n}@example.com`, password(app, n));
        expect(ok.json.status, `${app.id} user${n}`).toBe('OK');
        expect(ok.json.user.id).toBe(`ext-${n}`);
      }
      // Another app's password for the same email does not work here.
      const other = app === apps.c ? apps.d : apps.c;
      expect((await signIn(app.id, 'user1@example.com', password(other, 1))).json.status).toBe(
        'WRONG_CREDENTIALS_ERROR',
      );
    }
  }, 300_000);

  it('keeps every item of each app in its table and none anywhere else (the base keeps only its tenants and marker)', async () => {
    const byTable = await itemsByTable();
    for (const app of Object.values(apps)) {
      const home = tableOf(app);
      const own = byTable.get(home)!.get(app.id)!;
      const users = own.filter((i) => i.SK === 'USER');
      expect(users, app.id).toHaveLength(BULK_USERS + 1);
      expect(own.filter((i) => String(i.SK).startsWith('ROLE#')).length, app.id).toBeGreaterThan(BULK_USERS);
      expect(
        own.filter((i) => i.SK === 'METADATA'),
        app.id,
      ).toHaveLength(BULK_USERS + 1);
      for (const [table, perApp] of byTable) {
        if (table === home) continue;
        const elsewhere = perApp.get(app.id)!;
        const allowed = table === tableName() ? elsewhere.filter(baseTableOwn) : [];
        expect(keysOf(elsewhere), `${app.id} in ${table}`).toEqual(keysOf(allowed));
      }
      if (home !== tableName()) {
        // Tenants and the marker live only in the base table.
        expect(own.filter(baseTableOwn), app.id).toEqual([]);
        expect(
          byTable
            .get(tableName())!
            .get(app.id)!
            .some((i) => i.SK === 'TENANT#public'),
          app.id,
        ).toBe(true);
      }
    }
  });

  it('the reconciler finds pending rows in every table from the markers in the base table', async () => {
    const extra = (app: App) => Array.from({ length: 5 }, (_, i) => bulkUser(app, 1000 + i));
    for (const app of [apps.a, apps.c]) expect((await stage(app.id, extra(app))).status).toBe(200);
    // The messages are lost (a local queue restarted): only the reconciler can bring them back.
    await purgeQueue(pair.queueUrl);
    const mine = new Set(Object.values(apps).map((a) => a.id));
    const deps = reconcilerDeps();
    const { resent } = await reconcileStagedUsers(
      {
        ...deps,
        markers: { ...deps.markers, list: async () => (await deps.markers.list()).filter((m) => mine.has(m.appId)) },
      },
      Date.now() + 1,
    );
    expect(resent).toBe(10);
    await withPipeline(async () => {
      await waitUntilDone(apps.a.id);
      await waitUntilDone(apps.c.id);
    });
    for (const app of [apps.a, apps.c]) {
      expect((await call('GET', `/appid-${app.id}/public/users/count`)).json.count, app.id).toBe(BULK_USERS + 6);
      expect((await signIn(app.id, 'user1004@example.com', password(app, 1004))).json.status).toBe('OK');
    }
  });

  it("the DLQ consumer fails a row in its app's table", async () => {
    expect((await stage(apps.d.id, [bulkUser(apps.d, 2000)])).status).toBe(200);
    await purgeQueue(pair.queueUrl);
    const [row] = await listAll(apps.d.id, 'NEW');
    const id = row.id as string;
    expect(row.externalUserId).toBe('ext-2000');
    const result = await dlqConsumer(sqsEvent([importMessage(apps.d.id, id)]));
    expect(result.batchItemFailures).toEqual([]);
    const [failed] = await listAll(apps.d.id, 'FAILED');
    expect(failed.id).toBe(id);
    const stored = (await scan(TABLE_CD)).find((i) => i.PK === `APP#${apps.d.id}#BULK#${id}`);
    expect(stored?.status).toBe('FAILED');
    const removed = await call('POST', `/appid-${apps.d.id}/bulk-import/users/remove`, { body: { ids: [id] } });
    expect(removed.status, removed.text).toBe(200);
  });

  it('deleting C empties its share of the shared table and leaves D, A and B as they were', async () => {
    const before = await itemsByTable();
    const removed = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId: apps.c.id } });
    expect(removed.json).toEqual({ status: 'OK', didExist: true });
    const after = await itemsByTable();
    for (const table of [tableName(), TABLE_A, TABLE_CD]) {
      expect(after.get(table)!.get(apps.c.id), `C in ${table}`).toEqual([]);
      for (const app of [apps.a, apps.b, apps.d]) {
        expect(keysOf(after.get(table)!.get(app.id)!), `${app.id} in ${table}`).toEqual(
          keysOf(before.get(table)!.get(app.id)!),
        );
      }
    }
    expect((await signIn(apps.d.id, 'user1@example.com', password(apps.d, 1))).json.status).toBe('OK');
    // The table stays: an app deletion never drops one.
    await getDocumentClient().send(new DescribeTableCommand({ TableName: TABLE_CD }));
    expect((await call('POST', '/recipe/multitenancy/app/remove', { body: { appId: apps.c.id } })).json).toEqual({
      status: 'OK',
      didExist: false,
    });
  });
});

describe('dynamodb_table_name validation', () => {
  const putApp = (appId: string, coreConfig: Record<string, unknown>) =>
    call('PUT', '/recipe/multitenancy/app/v2', { body: { appId, coreConfig } });

  it('refuses a table that does not exist (where tables are only checked), and creates no app', async () => {
    const appId = `tables-unknown-${run}`;
    const res = await putApp(appId, { dynamodb_table_name: `no-such-table-${run}` });
    expect(res.status).toBe(400);
    expect(res.text).toBe(`Invalid core config: dynamodb_table_name: table 'no-such-table-${run}' does not exist`);
    const list = await call('GET', '/recipe/multitenancy/app/list/v2');
    expect(list.json.apps.map((a: { appId: string }) => a.appId)).not.toContain(appId);
  });

  it("refuses a table without this core's key schema or indexes", async () => {
    const wrongKeys = `wrong-keys-${run}`;
    await getDocumentClient().send(
      new CreateTableCommand({
        TableName: wrongKeys,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    const keys = await putApp(`tables-wrong-${run}`, { dynamodb_table_name: wrongKeys });
    expect(keys.status).toBe(400);
    expect(keys.text).toBe(
      `Invalid core config: dynamodb_table_name: table '${wrongKeys}' does not have this core's key schema: its keys must be PK (partition key) and SK (sort key), not id and none`,
    );
    const noIndexes = `no-indexes-${run}`;
    await getDocumentClient().send(
      new CreateTableCommand({
        TableName: noIndexes,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'PK', AttributeType: 'S' },
          { AttributeName: 'SK', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
      }),
    );
    const indexes = await putApp(`tables-wrong-${run}`, { dynamodb_table_name: noIndexes });
    expect(indexes.status).toBe(400);
    expect(indexes.text).toBe(
      `Invalid core config: dynamodb_table_name: table '${noIndexes}' does not have this core's key schema: it has no global secondary index GSI1`,
    );
  });

  it('refuses a name DynamoDB would refuse, whatever it is', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 300 }).filter((s) => !/^[A-Za-z0-9_.-]{3,255}$/.test(s)),
        async (name) => {
          const res = await putApp(`tables-syntax-${run}`, { dynamodb_table_name: name });
          expect(res.status).toBe(400);
          expect(res.text).toBe(
            "Invalid core config: 'dynamodb_table_name' must be 3 to 255 characters, each a letter, a digit, '_', '-' or '.'",
          );
        },
      ),
      { numRuns: 25 },
    );
  });

  it('refuses the key on a tenant', async () => {
    const app = await createApp('tables-tenant', undefined);
    const res = await call('PUT', `/appid-${app.id}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: 't1', coreConfig: { dynamodb_table_name: TABLE_A } },
    });
    expect(res.status).toBe(400);
    expect(res.text).toBe('Invalid core config: dynamodb_table_name can only be set for the app, not for a tenant');
  });

  it('lets a new or empty app move between tables, and refuses the move once it holds data', async () => {
    process.env[ENV.createTables] = 'true';
    try {
      const app = await createApp('tables-move', undefined);
      const moved = `apptables-move-${run}`;
      expect((await putApp(app.id, { dynamodb_table_name: moved })).status).toBe(200);
      expect((await putApp(app.id, { dynamodb_table_name: TABLE_A })).status).toBe(200);
      expect((await putApp(app.id, { dynamodb_table_name: null })).status).toBe(200);
      expect((await putApp(app.id, { dynamodb_table_name: moved })).status).toBe(200);

      // A staged user (not yet imported) holds the app in its table.
      await purgeQueue(pair.queueUrl);
      const { userRoles: _none, userMetadata: _either, ...plain } = bulkUser(app, 1);
      const staging = await stage(app.id, [plain]);
      expect(staging.status, staging.text).toBe(200);
      const staged = await putApp(app.id, { dynamodb_table_name: TABLE_A });
      expect(staged.status).toBe(400);
      expect(staged.text).toBe(
        `Invalid core config: dynamodb_table_name cannot change while the app has staged users in table '${moved}': an app moves to another table only while it holds no data (remove it first, or create a new app)`,
      );
      await createRole(app.id, 'member');
      expect((await importUser(app.id, bulkUser(app, 2))).status).toBe(200);
      const back = await putApp(app.id, { dynamodb_table_name: null });
      expect(back.status).toBe(400);
      expect(back.text).toBe(
        `Invalid core config: dynamodb_table_name cannot change while the app has users, staged users, roles and user data (metadata, role assignments, TOTP devices, sessions) in table '${moved}': an app moves to another table only while it holds no data (remove it first, or create a new app)`,
      );
      // The same name again, or other keys, are not a move.
      expect((await putApp(app.id, { dynamodb_table_name: moved, mfa_enabled: true })).status).toBe(200);
      expect((await call('GET', `/appid-${app.id}/public/users/count`)).json.count).toBe(1);
    } finally {
      delete process.env[ENV.createTables];
    }
  });
});
