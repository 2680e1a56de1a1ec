/**
 * Each app its own table or a shared one, end to end: `npm start` as a child process, apps A (a
 * table of its own), B (the base table), C and D (sharing a third), their users signed in through
 * the official SDK; a SIGKILL in the middle of simultaneous imports into A and C, then a restart:
 * every user imported exactly once, in its app's table. And `DYNAMODB_ENDPOINT`: the runtime on an
 * already-running DynamoDB Local instead of the bundled one.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { freePort, startDynamoDbLocal } from '../../bin/local/dynamodb.js';
import { jsonOr } from '../helpers/json.js';
import type { LocalProcess } from '../helpers/local-process.js';
import { killHard, useRuntimes } from '../helpers/runtimes.js';

const RUN = randomBytes(4).toString('hex');
const TABLE_A = `e2e-a-${RUN}`;
const TABLE_CD = `e2e-cd-${RUN}`;
const BASE_TABLE = 'auth-core';
/** Users staged into A and into C, at the same time. */
const STAGED = 600;
/** Kill the runtime once this many of them are imported (A and C together), both still pending. */
const KILL_AFTER_IMPORTED = 100;
const DRAIN_TIMEOUT_MS = 15 * 60_000;
const STALL_TIMEOUT_MS = 2 * 60_000;
const STAGED_PASSWORD = 'app-tables-e2e-password';
const PASSWORD_HASH = bcrypt.hashSync(STAGED_PASSWORD, bcrypt.genSaltSync(4));
const SDK_CLIENT = resolve(import.meta.dirname, 'fixtures', 'sdk-app-client.ts');

type Item = Record<string, unknown>;
interface App {
  readonly key: 'a' | 'b' | 'c' | 'd';
  readonly id: string;
  readonly table: string;
}
const APPS: readonly App[] = [
  { key: 'a', id: `tbl-a-${RUN}`, table: TABLE_A },
  { key: 'b', id: `tbl-b-${RUN}`, table: BASE_TABLE },
  { key: 'c', id: `tbl-c-${RUN}`, table: TABLE_CD },
  { key: 'd', id: `tbl-d-${RUN}`, table: TABLE_CD },
];
const app = (key: App['key']) => APPS.find((a) => a.key === key)!;
const firstPassword = (a: App) => `first-password-${a.key}-${RUN}`;

const runtimes = useRuntimes();
const dataDir = () => runtimes.dataDir();

async function start(options: { dataDir?: string; env?: Record<string, string> }): Promise<LocalProcess> {
  const runtime = await runtimes.start({
    dataDir: options.dataDir ?? dataDir(),
    env: { API_KEYS: undefined, ...options.env },
  });
  await runtime.waitForOutput(/Auth core \(local\) ready/, 120_000);
  return runtime;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One request; a 503 (a staging request that ran out of its budget on a busy machine) is sent
 * again after its Retry-After, the same body, as every client does: it stages only what is left.
 */
async function request(runtime: LocalProcess, method: string, path: string, body?: unknown, gzip = false) {
  const raw = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  for (let attempt = 1; ; attempt++) {
    const response = await runtime.fetch(path, {
      method,
      headers: {
        ...(raw ? { 'content-type': 'application/json' } : {}),
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      },
      ...(raw ? { body: gzip ? gzipSync(raw) : raw } : {}),
    });
    const text = await response.text();
    if (response.status !== 503 || attempt >= 20) return { status: response.status, text, json: jsonOr(text) };
    await sleep(Math.min(5_000, 1_000 * Number(response.headers.get('retry-after') ?? '1')));
  }
}

async function getJson(runtime: LocalProcess, path: string): Promise<any> {
  const res = await request(runtime, 'GET', path);
  if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}: ${res.text}`);
  return res.json;
}

const userCount = async (runtime: LocalProcess, a: App) =>
  (await getJson(runtime, `/appid-${a.id}/users/count`)).count as number;
const stagedCount = async (runtime: LocalProcess, a: App, status?: string) =>
  (await getJson(runtime, `/appid-${a.id}/bulk-import/users/count${status ? `?status=${status}` : ''}`))
    .count as number;
const pending = async (runtime: LocalProcess, a: App) =>
  (await stagedCount(runtime, a, 'NEW')) + (await stagedCount(runtime, a, 'PROCESSING'));

/** Every user of an app, by email (walks the pages). */
async function usersByEmail(runtime: LocalProcess, a: App): Promise<Map<string, string[]>> {
  const byEmail = new Map<string, string[]>();
  let token: string | undefined;
  do {
    const page = await getJson(
      runtime,
      `/appid-${a.id}/public/users?limit=500${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`,
    );
    for (const user of page.users as { id: string; emails: string[] }[]) {
      for (const email of user.emails) byEmail.set(email, [...(byEmail.get(email) ?? []), user.id]);
    }
    token = page.nextPaginationToken;
  } while (token);
  return byEmail;
}

async function createApps(runtime: LocalProcess): Promise<void> {
  for (const a of APPS) {
    const coreConfig = a.table === BASE_TABLE ? {} : { dynamodb_table_name: a.table };
    const created = await request(runtime, 'PUT', '/recipe/multitenancy/app/v2', { appId: a.id, coreConfig });
    expect(created.status, created.text).toBe(200);
    const role = await request(runtime, 'PUT', `/appid-${a.id}/recipe/role`, { role: 'member', permissions: ['p'] });
    expect(role.status, role.text).toBe(200);
    // The same email in every app, each with its own password.
    const first = await request(runtime, 'POST', `/appid-${a.id}/bulk-import/import`, {
      externalUserId: `first-${a.key}`,
      userMetadata: { app: a.key },
      userRoles: [{ role: 'member', tenantIds: ['public'] }],
      loginMethods: [{ recipeId: 'emailpassword', email: 'first@example.com', plainTextPassword: firstPassword(a) }],
    });
    expect(first.status, first.text).toBe(200);
  }
}

const stagedUsers = (a: App) =>
  Array.from({ length: STAGED }, (_, i) => ({
    userMetadata: { i, app: a.key },
    userRoles: [{ role: 'member', tenantIds: ['public'] }],
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email: `u${i}@example.com`,
        passwordHash: PASSWORD_HASH,
        hashingAlgorithm: 'BCRYPT',
      },
    ],
  }));

/** A direct reader of the runtime's DynamoDB Local (its endpoint is on the banner). */
function tableReader(runtime: LocalProcess) {
  const endpoint = runtime.stdout.match(/DynamoDB Local pid \d+ at (\S+),/)?.[1];
  if (!endpoint) throw new Error(`no DynamoDB endpoint on the banner:\n${runtime.describe()}`);
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  return {
    async scan(table: string): Promise<Item[]> {
      const items: Item[] = [];
      let startKey: Item | undefined;
      do {
        const out = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey }));
        items.push(...(out.Items ?? []));
        startKey = out.LastEvaluatedKey;
      } while (startKey);
      return items;
    },
    destroy: () => client.destroy(),
  };
}

const belongsTo = (a: App) => (item: Item) => item.PK === `APP#${a.id}` || String(item.PK).startsWith(`APP#${a.id}#`);
/** What the base table keeps for every app: its tenants and its staging marker. */
const baseTableOwn = (item: Item) =>
  /^APP#[^#]+$/.test(String(item.PK)) ? String(item.SK).startsWith('TENANT#') : String(item.PK).endsWith('#BULKAPP');

/** The official SDK, one process per app (it talks to one app per process). */
async function throughSdk(runtime: LocalProcess, a: App, users: { email: string; password: string }[]) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', SDK_CLIENT, JSON.stringify({ connectionURI: `${runtime.url}/appid-${a.id}`, users })],
    { cwd: resolve(import.meta.dirname, '..', '..'), timeout: 60_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as {
    users: { email: string; status: string; id?: string; roles?: string[]; metadata?: Record<string, unknown> }[];
    count: number;
  };
}

describe('apps on their own, the base and a shared table', () => {
  it('a SIGKILL mid simultaneous imports into A and C, then a restart: every user once, in the right table', {
    timeout: 25 * 60_000,
  }, async () => {
    const dir = dataDir();
    const first = await start({ dataDir: dir });
    await createApps(first);

    // Two imports at once, into A's own table and into the table C shares with D.
    const [stagedA, stagedC] = await Promise.all(
      [app('a'), app('c')].map((a) =>
        request(first, 'POST', `/appid-${a.id}/bulk-import/users`, { users: stagedUsers(a) }, true),
      ),
    );
    expect(stagedA!.status, stagedA!.text.slice(0, 300)).toBe(200);
    expect(stagedC!.status, stagedC!.text.slice(0, 300)).toBe(200);

    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    for (;;) {
      const imported = (await userCount(first, app('a'))) + (await userCount(first, app('c'))) - 2;
      if (imported >= KILL_AFTER_IMPORTED) break;
      if (Date.now() > deadline) throw new Error(`the imports did not get going (${imported})`);
      await sleep(300);
    }
    const stillPending = [await pending(first, app('a')), await pending(first, app('c'))];
    expect((await killHard(first, dir)).signal).toBe('SIGKILL');
    expect(
      stillPending.every((n) => n > 0),
      `both imports still running when killed: ${stillPending}`,
    ).toBe(true);

    const second = await start({ dataDir: dir });
    let last = { at: Date.now(), left: Number.POSITIVE_INFINITY };
    for (;;) {
      const left = (await pending(second, app('a'))) + (await pending(second, app('c')));
      if (left === 0) break;
      if (left < last.left) last = { at: Date.now(), left };
      if (Date.now() - last.at > STALL_TIMEOUT_MS || Date.now() > deadline + DRAIN_TIMEOUT_MS) {
        throw new Error(`still ${left} staged users pending\n${second.describe()}`);
      }
      await sleep(2_000);
    }

    // Every staged user exactly once, none FAILED; B and D untouched.
    for (const a of APPS) {
      const expected = a.key === 'a' || a.key === 'c' ? STAGED + 1 : 1;
      expect(await stagedCount(second, a, 'FAILED'), a.id).toBe(0);
      expect(await stagedCount(second, a), a.id).toBe(0);
      expect(await userCount(second, a), a.id).toBe(expected);
      const byEmail = await usersByEmail(second, a);
      expect(byEmail.size, a.id).toBe(expected);
      expect(
        [...byEmail].filter(([, ids]) => ids.length !== 1),
        a.id,
      ).toEqual([]);
      if (expected > 1) {
        const missing = Array.from({ length: STAGED }, (_, i) => `u${i}@example.com`).filter((e) => !byEmail.has(e));
        expect(missing, a.id).toEqual([]);
      }
    }

    // A direct read of every table: each app's items in its table only (the base keeps tenants and markers).
    const reader = tableReader(second);
    try {
      const tables = new Map<string, Item[]>();
      for (const table of [BASE_TABLE, TABLE_A, TABLE_CD]) tables.set(table, await reader.scan(table));
      for (const a of APPS) {
        const expected = a.key === 'a' || a.key === 'c' ? STAGED + 1 : 1;
        for (const [table, items] of tables) {
          const own = items.filter(belongsTo(a));
          if (table === a.table) {
            expect(
              own.filter((i) => i.SK === 'USER'),
              `${a.id} users in ${table}`,
            ).toHaveLength(expected);
            expect(
              own.filter((i) => i.SK === 'METADATA'),
              `${a.id} metadata in ${table}`,
            ).toHaveLength(expected);
          } else {
            const allowed = table === BASE_TABLE ? own.filter(baseTableOwn) : [];
            expect(own.length, `${a.id} items in ${table}`).toBe(allowed.length);
          }
        }
      }
    } finally {
      reader.destroy();
    }

    // Through the official SDK: each app signs in its own users only, with their roles and metadata.
    for (const a of APPS) {
      const users = [{ email: 'first@example.com', password: firstPassword(a) }];
      if (a.key === 'a' || a.key === 'c') users.push({ email: 'u7@example.com', password: STAGED_PASSWORD });
      const other = APPS.find((x) => x.table === a.table && x !== a) ?? app(a.key === 'a' ? 'b' : 'a');
      users.push({ email: 'first@example.com', password: firstPassword(other) });
      const sdk = await throughSdk(second, a, users);
      expect(sdk.count, a.id).toBe(a.key === 'a' || a.key === 'c' ? STAGED + 1 : 1);
      expect(sdk.users[0], a.id).toMatchObject({ status: 'OK', id: `first-${a.key}`, roles: ['member'] });
      expect(sdk.users[0]!.metadata, a.id).toEqual({ app: a.key });
      if (users.length === 3) {
        expect(sdk.users[1], a.id).toMatchObject({ status: 'OK', roles: ['member'], metadata: { i: 7, app: a.key } });
      }
      expect(sdk.users.at(-1)!.status, `${a.id} with another app's password`).toBe('WRONG_CREDENTIALS_ERROR');
    }

    for (const runtime of [first, second]) {
      const output = runtime.stdout + runtime.stderr;
      expect(output.includes(PASSWORD_HASH.slice(7)), 'a password hash reached the runtime output').toBe(false);
      for (const a of APPS) expect(output.includes(firstPassword(a))).toBe(false);
    }
  });
});

describe('DYNAMODB_ENDPOINT', () => {
  it('runs on an already-running DynamoDB Local, creates the tables apps name there, and keeps the data across restarts', async () => {
    const port = await freePort();
    // As `docker run -p 8000:8000 amazon/dynamodb-local` runs it: in memory, no -sharedDb (but on
    // 127.0.0.1 only, as every DynamoDB Local the tests start).
    const external = await startDynamoDbLocal({ port, sharedDb: false });
    const endpoint = external.endpoint;
    const client = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      const env = { DYNAMODB_ENDPOINT: endpoint };
      const first = await start({ env });
      expect(first.stdout).toContain(
        `DynamoDB:  ${endpoint} (DynamoDB Local; tables are created as needed), table auth-core`,
      );
      expect(first.stdout).toContain(`Data:      in the DynamoDB at ${endpoint}`);
      expect(first.stdout).not.toMatch(/DynamoDB Local pid/);
      const a = app('a');
      const created = await request(first, 'PUT', '/recipe/multitenancy/app/v2', {
        appId: a.id,
        coreConfig: { dynamodb_table_name: TABLE_A },
      });
      expect(created.status, created.text).toBe(200);
      const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE_A }));
      expect(Table?.TableStatus).toBe('ACTIVE');
      const imported = await request(first, 'POST', `/appid-${a.id}/bulk-import/import`, {
        loginMethods: [{ recipeId: 'emailpassword', email: 'ext@example.com', plainTextPassword: firstPassword(a) }],
      });
      expect(imported.status, imported.text).toBe(200);
      first.kill('SIGINT');
      expect((await first.exited).code).toBe(0);
      // The runtime stops; the DynamoDB it did not start keeps running, with the data.
      expect(external.process.exitCode).toBeNull();

      const second = await start({ env });
      const signIn = await request(second, 'POST', `/appid-${a.id}/public/recipe/signin`, {
        email: 'ext@example.com',
        password: firstPassword(a),
      });
      expect(signIn.json?.status, signIn.text).toBe('OK');
    } finally {
      client.destroy();
      await external.stop();
    }
  });

  it('stops at start-up with a clear message when nothing answers there (the URL shown without credentials)', async () => {
    const port = await freePort();
    const runtime = await runtimes.start({
      dataDir: dataDir(),
      env: { DYNAMODB_ENDPOINT: `http://ops:pw-5e1c@127.0.0.1:${port}/?token=tok-8d2f` },
    });
    const { code } = await runtime.exited;
    expect(code).toBe(1);
    expect(runtime.stderr).toContain(`DynamoDB at http://127.0.0.1:${port} (DYNAMODB_ENDPOINT):`);
    for (const secret of ['ops:', 'pw-5e1c', 'tok-8d2f'])
      expect(`${runtime.stdout}${runtime.stderr}`).not.toContain(secret);
  });
});
