/**
 * The migration command's client side against a small local HTTP server of this test's own that
 * implements the staging contract (docs/bulk-import.md: Idempotency-Key replay, 409 while a request
 * with the key runs, 422 for another body, dry run with per-index conflicts), so retries, replays,
 * resume and the dry run are checked without the core.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportFailures } from '../../bin/auth-core/src/admin.js';
import { credentialFingerprint } from '../../bin/auth-core/src/contract.js';
import { CoreClient, sameCredential } from '../../bin/auth-core/src/core-client.js';
import { CliError } from '../../bin/auth-core/src/errors.js';
import { type MigrateOptions, migrate } from '../../bin/auth-core/src/migrate/migrate.js';
import { chunkKey } from '../../bin/auth-core/src/migrate/plan.js';
import { Progress } from '../../bin/auth-core/src/progress.js';
import { displayUrl, forgetSecrets, REDACTED } from '../../bin/auth-core/src/redact.js';
import { COMMAND_ENTRY } from '../helpers/command.js';

interface Staged {
  id: string;
  externalUserId?: string;
  email: string;
  phoneNumber?: string;
  status: 'NEW' | 'FAILED' | 'IMPORTED';
}

type Body = {
  users: Array<{ externalUserId?: string; loginMethods: Array<{ email?: string; phoneNumber?: string }> }>;
};

/** The core's message for a user whose email (emailpassword) or phone number (passwordless) exists. */
function exists(login: { email?: string; phoneNumber?: string } | undefined): string {
  return login?.phoneNumber !== undefined
    ? `E007: A user with phoneNumber ${login.phoneNumber} already exists in passwordless loginMethod.`
    : `E003: A user with email ${login?.email ?? ''} already exists in emailpassword loginMethod.`;
}

class ContractCore {
  server!: Server;
  url = '';
  staged: Staged[] = [];
  keys = new Map<string, { digest: string; status: number; body: string } | 'running'>();
  requests: Array<{ path: string; key?: string; authorization?: string; query: URLSearchParams }> = [];
  /** Answers to give before the real one, per request count (e.g. 429 once; 'ok': no fault). */
  faults: Array<'ok' | '429' | '500' | '503' | 'drop-after-staging' | 'slow'> = [];
  dryRunSupported = true;
  /** Emails and phone numbers that already exist in the app (dry-run conflicts, FAILED at import). */
  existing = new Set<string>();
  apiKey = 'contract-test-key-0123456789';
  /** The app's `mfa_enabled` as the tenant read shows it. */
  mfaEnabled = false;
  /** Every staging body received (parsed), dry runs included. */
  bodies: Body[] = [];

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' });
    res.end(text);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let raw = Buffer.concat(chunks);
    if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
    const url = new URL(req.url ?? '/', this.url);
    const key = req.headers['idempotency-key'] as string | undefined;
    this.requests.push({
      path: `${req.method} ${url.pathname}${url.search}`,
      key,
      authorization: req.headers.authorization,
      query: url.searchParams,
    });
    if (req.headers['api-key'] !== this.apiKey) return this.send(res, 401, 'Invalid API key');
    if (!url.pathname.startsWith('/appid-shop/')) {
      return this.send(
        res,
        400,
        `AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, nope, public)`,
      );
    }
    const path = url.pathname.slice('/appid-shop'.length);
    if (path === '/public/recipe/multitenancy/tenant/v2') {
      return this.send(res, 200, {
        status: 'OK',
        tenantId: 'public',
        coreConfig: {
          account_linking_enabled: true,
          ...(this.mfaEnabled ? { mfa_enabled: true } : {}),
          firebase_password_hashing_signer_key: credentialFingerprint('c2lnbmVy'),
        },
      });
    }
    if (path === '/bulk-import/users/count') {
      // The "import" happens between two polls: staged rows leave NEW.
      for (const row of this.staged) if (row.status === 'NEW') row.status = 'IMPORTED';
      const status = url.searchParams.get('status');
      const rows = this.staged.filter((s) => s.status !== 'IMPORTED');
      return this.send(res, 200, {
        status: 'OK',
        count: rows.filter((s) => status === null || s.status === status).length,
      });
    }
    if (path === '/bulk-import/users' && req.method === 'GET') {
      return this.send(res, 200, {
        status: 'OK',
        users: this.staged
          .filter((s) => s.status === 'FAILED')
          .map((s) => ({
            id: s.id,
            externalUserId: s.externalUserId,
            status: 'FAILED',
            errorMessage: exists(s),
            loginMethods: [
              s.phoneNumber === undefined
                ? { recipeId: 'emailpassword', email: s.email }
                : { recipeId: 'passwordless', phoneNumber: s.phoneNumber },
            ],
          })),
      });
    }
    if (path === '/bulk-import/users' && req.method === 'POST') {
      const body = JSON.parse(raw.toString('utf8')) as Body;
      this.bodies.push(body);
      const fault = this.faults.shift();
      if (fault === '429') {
        res.writeHead(429, { 'retry-after': '0' });
        return void res.end('Too many requests');
      }
      if (fault === '503') {
        res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' });
        return void res.end('The request ran out of time before every user was staged: send it again');
      }
      if (fault === '500') return this.send(res, 500, 'Internal Server Error');
      if (url.searchParams.get('dryRun') === 'true') {
        if (!this.dryRunSupported) return this.stage(res, body, fault);
        const conflicts = body.users.flatMap((u, index) => {
          const login = u.loginMethods[0];
          return this.existing.has(login?.phoneNumber ?? login?.email ?? '')
            ? [{ index, errors: [exists(login)] }]
            : [];
        });
        return this.send(res, 200, {
          status: 'OK',
          dryRun: true,
          wouldImport: body.users.length - conflicts.length,
          conflicts,
        });
      }
      const invalid = body.users.flatMap((u, index) => {
        if (u.loginMethods.length === 0) return [{ index, errors: ['At least one loginMethod is required.'] }];
        const phone = u.loginMethods[0]?.phoneNumber;
        if (phone !== undefined && phone.length > 256) {
          return [{ index, errors: [`phoneNumber ${phone} is too long. Max length is 256.`] }];
        }
        return [];
      });
      const answerInvalid = () =>
        this.send(res, 400, {
          error: 'Data has missing or invalid fields. Please check the users field for more details.',
          users: invalid,
        });
      if (key === undefined) return invalid.length > 0 ? answerInvalid() : this.stage(res, body, fault);
      const digest = createHash('sha256').update(raw).digest('hex');
      const seen = this.keys.get(key);
      if (seen === 'running')
        return this.send(res, 409, 'A request with this Idempotency-Key is still being processed; retry later');
      if (seen) {
        if (seen.digest !== digest)
          return this.send(res, 422, 'Idempotency-Key is already used with a different request body');
        res.writeHead(seen.status, { 'content-type': 'application/json', 'idempotency-replayed': 'true' });
        return void res.end(seen.body);
      }
      this.keys.set(key, 'running');
      if (fault === 'slow') await new Promise((r) => setTimeout(r, 300));
      if (invalid.length > 0) {
        this.keys.set(key, {
          digest,
          status: 400,
          body: JSON.stringify({
            error: 'Data has missing or invalid fields. Please check the users field for more details.',
            users: invalid,
          }),
        });
        return answerInvalid();
      }
      const answer = this.stageUsers(body);
      this.keys.set(key, { digest, status: 200, body: JSON.stringify(answer) });
      if (fault === 'drop-after-staging') return void res.socket?.destroy();
      return this.send(res, 200, answer);
    }
    this.send(res, 404, 'Not found');
  }

  private stage(res: ServerResponse, body: Body, fault: unknown): void {
    const answer = this.stageUsers(body);
    if (fault === 'drop-after-staging') return void res.socket?.destroy();
    this.send(res, 200, answer);
  }

  private stageUsers(body: Body) {
    return {
      status: 'OK',
      users: body.users.map((u) => {
        const id = randomUUID();
        const email = u.loginMethods[0]?.email ?? '';
        const phoneNumber = u.loginMethods[0]?.phoneNumber;
        const failed = this.existing.has(phoneNumber ?? email);
        this.staged.push({
          id,
          externalUserId: u.externalUserId,
          email,
          phoneNumber,
          status: failed ? 'FAILED' : 'NEW',
        });
        return { userId: id, loginMethods: [{ recipeId: 'emailpassword', userId: id, tenants: ['public'], email }] };
      }),
    };
  }
}

let core: ContractCore;
let dir: string;

beforeEach(async () => {
  core = new ContractCore();
  await core.start();
  dir = mkdtempSync(join(tmpdir(), 'cli-contract-'));
});

afterEach(async () => {
  // The values a test registered as secrets would be redacted from the next test's output.
  forgetSecrets();
  await core.stop();
  rmSync(dir, { recursive: true, force: true });
});

function payloadFile(emails: string[], extra: unknown[] = []): string {
  const file = join(dir, 'payload.ndjson');
  const lines = emails.map((email) =>
    JSON.stringify({
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email,
          passwordHash: '$2b$04$abcdefghijklmnopqrstuuWmQ1bmx0Ls1IuPYF0GKL4y7hEK0bCq.',
          hashingAlgorithm: 'BCRYPT',
        },
      ],
    }),
  );
  writeFileSync(file, `${[...lines, ...extra.map((e) => JSON.stringify(e))].join('\n')}\n`);
  return file;
}

const emails = (n: number, prefix = 'u') => Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);

function client(options: Partial<ConstructorParameters<typeof CoreClient>[0]> = {}) {
  return new CoreClient({
    url: core.url,
    apiKey: core.apiKey,
    appId: 'shop',
    baseDelayMs: 5,
    maxDelayMs: 20,
    ...options,
  });
}

function options(file: string, over: Partial<MigrateOptions> = {}): MigrateOptions {
  return {
    exportPath: file,
    source: 'supertokens',
    appId: 'shop',
    tenantId: 'public',
    settings: { tenantId: 'public', providerMap: new Map() },
    dryRun: false,
    reportPath: join(dir, 'report.ndjson'),
    statePath: join(dir, 'state.ndjson'),
    wait: true,
    batchSize: 3,
    concurrency: 2,
    pollMs: 5,
    ...over,
  };
}

const run = (file: string, over: Partial<MigrateOptions> = {}, c = client()) =>
  migrate(options(file, over), c, new Progress('json'));
const reportLines = () =>
  readFileSync(join(dir, 'report.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('staging against the contract', () => {
  it('sends gzipped chunks of --batch-size with one Idempotency-Key each and stages every user once', async () => {
    const summary = await run(payloadFile(emails(7)));
    expect(summary).toMatchObject({ converted: 7, staged: 7, imported: 7, failed: 0, exitCode: 0 });
    const posts = core.requests.filter((r) => r.path === 'POST /appid-shop/bulk-import/users');
    expect(posts.map((p) => p.key).sort()).toEqual(
      [
        [0, 3],
        [3, 3],
        [6, 1],
      ]
        .map(([start, users]) => chunkKey(summary.state ? readState().key : '', start as number, users as number))
        .sort(),
    );
    expect(core.staged.map((s) => s.email).sort()).toEqual(emails(7).sort());
  });

  it('retries 429 (Retry-After) and 503 with backoff', async () => {
    core.faults = ['429', '503', '429'];
    const retries: string[] = [];
    const summary = await run(
      payloadFile(emails(3)),
      {},
      client({ onRetry: (what) => retries.push(what.slice(0, 3)) }),
    );
    expect(summary).toMatchObject({ staged: 3, exitCode: 0 });
    expect(retries).toEqual(['429', '503', '429']);
    expect(core.staged).toHaveLength(3);
  });

  it('a lost connection after the core staged a chunk: the retry with the same key is a replay, nothing is staged twice', async () => {
    core.faults = ['drop-after-staging'];
    const summary = await run(payloadFile(emails(3)), { concurrency: 1 });
    expect(summary).toMatchObject({ staged: 3, exitCode: 0 });
    expect(core.staged).toHaveLength(3);
    const keys = core.requests.filter((r) => r.key).map((r) => r.key);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('409 while the first request with the key runs: retried until the replay', async () => {
    const file = payloadFile(emails(3));
    core.faults = ['slow'];
    const first = run(file, { wait: false, statePath: join(dir, 'a.ndjson') });
    await new Promise((r) => setTimeout(r, 50));
    const second = run(
      file,
      { wait: false, statePath: join(dir, 'b.ndjson'), reportPath: join(dir, 'r2.ndjson') },
      client({ attempts: 100 }),
    );
    const [a, b] = await Promise.all([first, second]);
    expect(a.staged).toBe(3);
    expect(b.staged).toBe(3);
    expect(core.staged).toHaveLength(3);
    expect(core.requests.filter((r) => r.key).length).toBeGreaterThan(2);
  });

  it('a re-run after a crash sends only the chunks the state file lacks', async () => {
    const file = payloadFile(emails(7));
    await run(file, { wait: false });
    const lines = readFileSync(join(dir, 'state.ndjson'), 'utf8').split('\n').filter(Boolean);
    // As if the command died before journaling the last chunk.
    writeFileSync(join(dir, 'state.ndjson'), `${lines.slice(0, -1).join('\n')}\n`);
    core.requests = [];
    const again = await run(file);
    expect(again).toMatchObject({ resumedChunks: 2, staged: 7, imported: 7, exitCode: 0 });
    expect(core.requests.filter((r) => r.key)).toHaveLength(1);
    expect(core.staged).toHaveLength(7);
  });

  it('any 5xx of a staging request is sent again, the same body under the same key, until the core takes it', async () => {
    core.faults = ['500', '503', '500', '500', '503'];
    const summary = await run(payloadFile(emails(3)), { concurrency: 1 });
    expect(summary).toMatchObject({ staged: 3, imported: 3, exitCode: 0 });
    const posts = core.requests.filter((r) => r.path === 'POST /appid-shop/bulk-import/users');
    expect(posts).toHaveLength(6);
    expect(new Set(posts.map((p) => p.key)).size).toBe(1);
    expect(new Set(core.bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(core.staged).toHaveLength(3);
  });

  it('a chunk refused for longer than the patience stops the run (exit 3); the re-run sends that chunk as it was, then sizes anew', async () => {
    const file = payloadFile(emails(10));
    // Chunks of 3: the first two are taken, the third is refused for now until the run gives up.
    core.faults = ['ok', 'ok', ...Array.from({ length: 10_000 }, () => '503' as const)];
    const stopped = await run(file, { concurrency: 1, wait: false, giveUpAfterMs: 100 }).catch((e: unknown) => e);
    expect(stopped).toBeInstanceOf(CliError);
    expect((stopped as CliError).exitCode).toBe(3);
    expect((stopped as CliError).message).toMatch(
      /^chunk 2: the core kept refusing it for now for \d+ s \(last: 503 The request ran out of time/,
    );
    const refusedKey = core.requests.filter((r) => r.key).at(-1)?.key;
    const refusedBody = JSON.stringify(core.bodies.at(-1));
    expect(core.staged).toHaveLength(6);

    // Again, with another size: the chunk the journal says was sent goes as it was, the rest in twos.
    core.faults = [];
    core.requests = [];
    core.bodies = [];
    const again = await run(file, { concurrency: 1, batchSize: 2 });
    expect(again).toMatchObject({ resumedChunks: 2, staged: 10, imported: 10, exitCode: 0 });
    const keys = core.requests.filter((r) => r.key).map((r) => r.key);
    expect(keys[0]).toBe(refusedKey);
    expect(JSON.stringify(core.bodies[0])).toBe(refusedBody);
    expect(core.bodies.map((b) => b.users.length)).toEqual([3, 1]);
    expect(keys[1]).toBe(chunkKey(readState().key, 9, 1));
    expect(core.staged.map((s) => s.email).sort()).toEqual(emails(10).sort());
  });

  it('--batch-size auto: the first request carries 1,000 users, the next grow, and the journal keeps every range sent', async () => {
    const summary = await run(payloadFile(emails(3_500)), { batchSize: 'auto', concurrency: 1, wait: false });
    expect(summary).toMatchObject({ staged: 3_500, exitCode: 0 });
    // Answered at once: each request twice the one before.
    expect(core.bodies.map((b) => b.users.length)).toEqual([1_000, 2_000, 500]);
    const ranges = readFileSync(join(dir, 'state.ndjson'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'planned')
      .map((e) => [e.start, e.users]);
    expect(ranges).toEqual([
      [0, 1_000],
      [1_000, 2_000],
      [3_000, 500],
    ]);
  });

  it('422 (the key was used with another body) stops with exit 2 and says why', async () => {
    const file = payloadFile(emails(3));
    await run(file, { wait: false });
    core.keys.forEach((v, k) => {
      if (v !== 'running') core.keys.set(k, { ...v, digest: 'other' });
    });
    const error = await run(file, { statePath: join(dir, 'fresh.ndjson') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    expect((error as CliError).message).toMatch(/already seen chunk 0 of this migration with a different body/);
  });

  it('users the core refuses are reported (check) and the rest of the chunk is staged under a new key', async () => {
    const summary = await run(payloadFile(emails(2), [{ externalUserId: 'bad-1', loginMethods: [] }]));
    expect(summary).toMatchObject({ staged: 2, refused: { convert: 0, check: 1, import: 0 }, exitCode: 1 });
    expect(reportLines()).toEqual([
      {
        position: 3,
        sourceId: 'bad-1',
        externalUserId: 'bad-1',
        stage: 'check',
        kind: 'not-imported',
        messages: ['At least one loginMethod is required.'],
      },
    ]);
    expect(core.requests.filter((r) => r.key).map((r) => r.key?.endsWith('-0+3-r1'))).toEqual([false, true]);
  });

  it('waits, then reports the FAILED rows of this migration (stage import) with their positions', async () => {
    core.existing.add('u1@example.com');
    const summary = await run(payloadFile(emails(4)));
    expect(summary).toMatchObject({ staged: 4, imported: 3, failed: 1, exitCode: 1 });
    expect(reportLines()).toEqual([
      {
        position: 2,
        sourceId: null,
        externalUserId: null,
        stage: 'import',
        kind: 'not-imported',
        messages: ['E003: A user with email u1@example.com already exists in emailpassword loginMethod.'],
      },
    ]);
  });
});

describe('dry run against the contract', () => {
  it('reports the core conflicts and duplicates across chunks, stages nothing', async () => {
    core.existing.add('u0@example.com');
    const summary = await run(payloadFile([...emails(4), 'u2@example.com']), { dryRun: true });
    expect(summary).toMatchObject({
      dryRun: true,
      converted: 5,
      wouldImport: 3,
      staged: 0,
      coreChecked: true,
      exitCode: 1,
    });
    expect(core.staged).toHaveLength(0);
    expect(reportLines()).toEqual([
      {
        position: 1,
        sourceId: null,
        externalUserId: null,
        stage: 'check',
        kind: 'not-imported',
        messages: ['E003: A user with email u0@example.com already exists in emailpassword loginMethod.'],
      },
      {
        position: 5,
        sourceId: null,
        externalUserId: null,
        stage: 'check',
        kind: 'not-imported',
        messages: [
          'duplicate: the same email u2@example.com (emailpassword) in tenant public as record 3 (in an earlier chunk)',
        ],
      },
    ]);
  });

  it('a core without dry-run support is detected by an empty probe: exit 3, nothing staged', async () => {
    core.dryRunSupported = false;
    const summary = await run(payloadFile(emails(4)), { dryRun: true });
    expect(summary).toMatchObject({ coreChecked: false, exitCode: 3, staged: 0 });
    expect(core.staged).toHaveLength(0);
    expect(core.requests.filter((r) => r.path.startsWith('POST')).map((r) => r.path)).toEqual([
      'POST /appid-shop/bulk-import/users?dryRun=true',
    ]);
  });
});

describe('the core refusing or missing', () => {
  it('exit 3 for a refused key, a missing app and an unreachable core', async () => {
    const file = payloadFile(emails(1));
    for (const [c, message] of [
      [client({ apiKey: 'wrong-key-wrong-key-wrong' }), /refused the API key/],
      [client({ appId: 'nope' }), /the app nope does not exist/],
      [new CoreClient({ url: 'http://127.0.0.1:9', appId: 'shop', baseDelayMs: 1, maxDelayMs: 2 }), /is unreachable/],
    ] as const) {
      const error = await run(file, {}, c).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(3);
      expect((error as CliError).message).toMatch(message);
      expect((error as CliError).message).not.toContain('wrong-key');
    }
  });

  it('a redirect is not followed (the API key would go along): exit 3, naming where it pointed without credentials', async () => {
    const elsewhere = new ContractCore();
    await elsewhere.start();
    const redirecting = createServer((_, res) => {
      res.writeHead(307, { location: `${elsewhere.url.replace('//', '//ops:hunter2@')}/moved?token=t0k` });
      res.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
      const error = await run(payloadFile(emails(1)), {}, client({ url })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(3);
      expect((error as CliError).message).toBe(
        `the core at ${url} answered GET /appid-shop/public/recipe/multitenancy/tenant/v2 with 307, a redirect to ` +
          `${elsewhere.url}/moved: give the address of the core itself as --core (redirects are not followed: the API key would go along)`,
      );
      expect(elsewhere.requests).toEqual([]);
    } finally {
      redirecting.closeAllConnections();
      await new Promise((resolve) => redirecting.close(resolve));
      await elsewhere.stop();
    }
  });

  it('compares a signer key with the fingerprint the core shows, or with the value in clear', () => {
    expect(credentialFingerprint('c2lnbmVy')).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(sameCredential(credentialFingerprint('c2lnbmVy'), 'c2lnbmVy')).toBe(true);
    expect(sameCredential('c2lnbmVy', 'c2lnbmVy')).toBe(true);
    expect(sameCredential(credentialFingerprint('other'), 'c2lnbmVy')).toBe(false);
  });
});

function readState(): { key: string } {
  return JSON.parse(readFileSync(join(dir, 'state.ndjson'), 'utf8').split('\n')[0] as string);
}

describe('the command line', () => {
  it('does not echo the value of a mistyped --api-key=<key> option', () => {
    const secret = `sk-${randomUUID()}`;
    const result = spawnSync(process.execPath, [COMMAND_ENTRY, 'status', '--app', 'a', `--api_key=${secret}`], {
      cwd: join(import.meta.dirname, '..', '..'),
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("error: unknown option '--api_key=<redacted>'");
    expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
  });
});

const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** The command as a child process (asynchronous: the contract core answers from this process). */
function command(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [COMMAND_ENTRY, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, AUTH_CORE_URL: '', AUTH_CORE_API_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((done) => child.on('close', (code) => done({ code, out })));
}

/** A port nothing listens on (a server bound to it, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('URLs are shown without credentials', () => {
  it('displayUrl drops user name, password, query string and fragment; an unparseable URL is not echoed', () => {
    expect(displayUrl('https://ops:hunter2@core.example.com:8443/prod/?token=t0k#frag')).toBe(
      'https://core.example.com:8443/prod',
    );
    expect(displayUrl('http://localhost:3567')).toBe('http://localhost:3567');
    expect(displayUrl('http://ops:hunter2@[::1')).toBe('<unparseable URL>');
    expect(displayUrl('not a url ops:hunter2')).toBe('<unparseable URL>');
  });

  it('user name, password and query token of the core URL: used for the requests, absent from everything written', async () => {
    const port = Number(new URL(core.url).port);
    const deadPort = await closedPort();
    const file = payloadFile(emails(2), [{ externalUserId: 'bad-1', loginMethods: [] }]);
    // Everything one scenario prints or writes: summaries, progress, error messages, report and state.
    const scenario = async (url: (host: string) => string): Promise<string> => {
      const out: string[] = [];
      const sink = new PassThrough();
      sink.on('data', (chunk: Buffer) => out.push(chunk.toString()));
      const over = { baseDelayMs: 1, maxDelayMs: 2, attempts: 2 };
      const fresh = () => {
        rmSync(join(dir, 'state.ndjson'), { force: true });
        rmSync(join(dir, 'report.ndjson'), { force: true });
      };
      fresh();
      const summary = await migrate(
        options(file),
        client({ url: url(`127.0.0.1:${port}`), ...over }),
        new Progress('plain', sink),
      );
      out.push(JSON.stringify(summary), readFileSync(join(dir, 'report.ndjson'), 'utf8'));
      out.push(readFileSync(join(dir, 'state.ndjson'), 'utf8'));
      core.dryRunSupported = false;
      fresh();
      const dry = await migrate(
        options(file, { dryRun: true }),
        client({ url: url(`127.0.0.1:${port}`), ...over }),
        new Progress('json', sink),
      );
      core.dryRunSupported = true;
      out.push(JSON.stringify(dry));
      for (const failing of [
        client({ url: url(`127.0.0.1:${port}`), apiKey: 'wrong-key-wrong-key', ...over }),
        client({ url: url(`127.0.0.1:${port}`), appId: 'nope', ...over }),
        client({ url: url(`127.0.0.1:${deadPort}`), ...over }),
      ]) {
        fresh();
        const error = await migrate(options(file), failing, new Progress('plain', sink)).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(CliError);
        out.push((error as CliError).message);
      }
      return out.join('\n');
    };
    const baseline = await scenario((host) => `http://${host}`);
    expect(baseline).toContain(`the core at http://127.0.0.1:${deadPort} is unreachable`);
    expect(baseline).toContain(`does not exist on the core at http://127.0.0.1:${port}`);
    // A string the run prints anyway (or the redaction marker) cannot tell whether a credential leaked.
    const secret = fc
      .string({ unit: 'grapheme', minLength: 6, maxLength: 20 })
      .filter((s) => !baseline.includes(s) && !REDACTED.includes(s));
    await fc.assert(
      fc.asyncProperty(secret, secret, secret, async (user, password, token) => {
        core.requests = [];
        const withCredentials = (host: string) => {
          const url = new URL(`http://${host}/?token=x#${encodeURIComponent(token)}`);
          url.username = user;
          url.password = password;
          url.searchParams.set('token', token);
          return url.toString();
        };
        const written = await scenario(withCredentials);
        const sample = new URL(withCredentials('h'));
        for (const value of [user, password, token, sample.username, sample.password, sample.search.slice(1)]) {
          expect(written).not.toContain(value);
        }
        // The credentials went to the core: Basic authorization from the user info, the query on every request.
        const sent = core.requests.filter((r) => r.authorization !== undefined);
        expect(sent.length).toBeGreaterThan(0);
        expect(sent.length).toBe(core.requests.length);
        const basic = Buffer.from(sent[0]?.authorization?.replace(/^Basic /, '') ?? '', 'base64').toString('utf8');
        // The user info as percent-decoded (a lone `%` stays as it is: the URL parser does not encode it).
        const decoded = (value: string) => {
          try {
            return decodeURIComponent(value);
          } catch {
            return value;
          }
        };
        expect(basic).toBe(`${decoded(sample.username)}:${decoded(sample.password)}`);
        expect(core.requests.every((r) => r.query.get('token') === token)).toBe(true);
      }),
      { numRuns: 15 },
    );
  }, 60_000);

  it('the command line: text and --json output, status, and a URL that does not parse', async () => {
    const report = join(dir, 'cli-report.ndjson');
    const state = join(dir, 'cli-state.ndjson');
    const file = payloadFile(emails(2), [{ externalUserId: 'bad-1', loginMethods: [] }]);
    const user = 'ops-user-7f3a';
    const password = 'pw:hunter2/%?';
    const token = 'tok-9c1e5b';
    const url = new URL(core.url);
    url.username = user;
    url.password = password;
    url.search = `token=${token}`;
    url.hash = 'frag-d41d';
    const secrets = [user, password, encodeURIComponent(password), token, 'frag-d41d'];
    const args = ['--app', 'shop', '--api-key', core.apiKey];
    const migrateArgs = ['migrate', file, '--from', 'supertokens', '--report', report, '--state', state];
    const runs = [
      await command([...migrateArgs, ...args, '--core', url.toString()]),
      await command([...migrateArgs, ...args, '--json'], { AUTH_CORE_URL: url.toString() }),
      await command(['status', ...args, '--core', url.toString()]),
      await command(['status', ...args, '--json'], { AUTH_CORE_URL: url.toString() }),
      await command([...migrateArgs, '--app', 'nope', '--api-key', core.apiKey, '--core', url.toString()]),
    ];
    expect(runs.map((r) => r.code)).toEqual([1, 1, 0, 0, 3]);
    expect(runs[4]?.out).toContain(`does not exist on the core at ${core.url}`);
    const written = [...runs.map((r) => r.out), readFileSync(report, 'utf8'), readFileSync(state, 'utf8')].join('\n');
    for (const secret of secrets) expect(written).not.toContain(secret);
    expect(core.requests.every((r) => r.query.get('token') === token)).toBe(true);

    for (const bad of [`http://${user}:${password}@[::1`, `http://${user}:${password}@`]) {
      const refused = await command(['status', '--app', 'shop'], { AUTH_CORE_URL: bad });
      expect(refused.code).toBe(2);
      expect(refused.out).toBe(
        "error: the core's URL (--core or AUTH_CORE_URL) does not parse as a URL: <unparseable URL> (not shown: it may hold a credential)\n",
      );
    }
    const ftp = await command(['status', '--app', 'shop', '--core', `ftp://${user}:${token}@example.com/x?t=${token}`]);
    expect(ftp).toEqual({
      code: 2,
      out: "error: the core's URL (--core or AUTH_CORE_URL) must be an http or https URL, got ftp://example.com/x\n",
    });
    const unknown = await command([`https://${user}:${token}@example.com/?t=${token}`]);
    expect(unknown.code).toBe(2);
    expect(unknown.out).toContain("error: unknown command 'https://example.com'");
    for (const secret of secrets) expect(unknown.out).not.toContain(secret);
  }, 60_000);
});

describe('files the command writes are private (mode 0600)', () => {
  const mode = (path: string) => statSync(path).mode & 0o777;
  const loose = (path: string, content = 'left over\n') => {
    writeFileSync(path, content, { mode: 0o644 });
    chmodSync(path, 0o644);
  };

  it('the report and the state file, also when they already exist with mode 0644', async () => {
    const file = payloadFile(emails(4), [{ externalUserId: 'bad-1', loginMethods: [] }]);
    const report = join(dir, 'report.ndjson');
    const state = join(dir, 'state.ndjson');
    loose(report);
    await run(file, { wait: false });
    expect(mode(report)).toBe(0o600);
    expect(mode(state)).toBe(0o600);
    expect(readFileSync(report, 'utf8')).not.toContain('left over');

    // A re-run resumes the journal it finds, and both files are private again.
    chmodSync(report, 0o644);
    chmodSync(state, 0o644);
    const again = await run(file);
    expect(again.resumedChunks).toBe(2);
    expect(mode(report)).toBe(0o600);
    expect(mode(state)).toBe(0o600);

    // The dry run writes the report only.
    chmodSync(report, 0o644);
    await run(file, { dryRun: true });
    expect(mode(report)).toBe(0o600);
  });

  it('failures --out, also when the file already exists with mode 0644', async () => {
    core.existing.add('u1@example.com');
    await run(payloadFile(emails(2)));
    const out = join(dir, 'failed.ndjson');
    loose(out);
    const result = await exportFailures(client(), out, false);
    expect(result.rows).toBe(1);
    expect(mode(out)).toBe(0o600);
    expect(readFileSync(out, 'utf8')).toContain('"status":"FAILED"');
  });

  it('a device is written as it is (--report /dev/null); a directory is refused with exit 2', async () => {
    const devNull = mode('/dev/null');
    const summary = await run(payloadFile(emails(1), [{ loginMethods: [] }]), { reportPath: '/dev/null' });
    expect(summary.reportLines).toBe(1);
    expect(mode('/dev/null')).toBe(devNull);
    const error = await run(payloadFile(emails(1)), { reportPath: dir, statePath: join(dir, 'other.ndjson') }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    expect((error as CliError).message).toMatch(new RegExp(`^cannot write the report ${dir}: EISDIR`));
  });
});

describe('phone numbers in the report and the state file', () => {
  const phoneUser = (id: string, phoneNumber: string) => ({
    externalUserId: id,
    loginMethods: [{ recipeId: 'passwordless', phoneNumber }],
  });
  const LONG = `+1${'5'.repeat(300)}`;
  const written = () =>
    `${readFileSync(join(dir, 'report.ndjson'), 'utf8')}${readFileSync(join(dir, 'state.ndjson'), 'utf8')}`;

  it("check and import: the core's reasons keep their wording, the number is masked but for its last two digits", async () => {
    core.existing.add('+14155550123');
    core.existing.add('u0@example.com');
    const file = payloadFile(emails(2), [phoneUser('p-1', '+14155550123'), phoneUser('p-2', LONG)]);
    const summary = await run(file, { batchSize: 4 });
    expect(summary).toMatchObject({ staged: 3, imported: 1, failed: 2, refused: { check: 1 }, exitCode: 1 });
    expect(reportLines().sort((a, b) => a.position - b.position)).toEqual([
      {
        position: 1,
        sourceId: null,
        externalUserId: null,
        stage: 'import',
        kind: 'not-imported',
        messages: ['E003: A user with email u0@example.com already exists in emailpassword loginMethod.'],
      },
      {
        position: 3,
        sourceId: 'p-1',
        externalUserId: 'p-1',
        stage: 'import',
        kind: 'not-imported',
        messages: ['E007: A user with phoneNumber +*********23 already exists in passwordless loginMethod.'],
      },
      {
        position: 4,
        sourceId: 'p-2',
        externalUserId: 'p-2',
        stage: 'check',
        kind: 'not-imported',
        messages: [`phoneNumber +${'*'.repeat(299)}55 is too long. Max length is 256.`],
      },
    ]);
    // The journal keeps the refusal as the report shows it.
    expect(written()).not.toContain('4155550123');
    expect(written()).not.toContain('5'.repeat(20));
    expect(readFileSync(join(dir, 'state.ndjson'), 'utf8')).toContain('is too long. Max length is 256.');
  });

  it('dry run: conflicts with the app and duplicates across chunks (one number spelled two ways) are masked', async () => {
    core.existing.add('+14155550123');
    const file = payloadFile(
      [],
      [phoneUser('p-1', '+14155550123'), phoneUser('p-2', '+442079460958'), phoneUser('p-3', ' +44 20 7946 0958')],
    );
    const summary = await run(file, { dryRun: true, batchSize: 2 });
    expect(summary).toMatchObject({ wouldImport: 1, exitCode: 1 });
    expect(reportLines()).toEqual([
      {
        position: 1,
        sourceId: 'p-1',
        externalUserId: 'p-1',
        stage: 'check',
        kind: 'not-imported',
        messages: ['E007: A user with phoneNumber +*********23 already exists in passwordless loginMethod.'],
      },
      {
        position: 3,
        sourceId: 'p-3',
        externalUserId: 'p-3',
        stage: 'check',
        kind: 'not-imported',
        messages: ['duplicate: the same phone number +**********58 in tenant public as record 2 (in an earlier chunk)'],
      },
    ]);
  });
});

describe('nothing dropped silently', () => {
  const TOTP_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
  const TOKEN = 'gho_contractSecretToken42';
  const KEY = 'contract-api-key-value-77';
  const totpUser = {
    externalUserId: 'mfa-1',
    userMetadata: { plan: 'gold', github: { access_token: TOKEN, login: 'ada' }, apiKey: KEY },
    totpDevices: [{ secretKey: TOTP_SECRET, period: 30, skew: 1, deviceName: 'phone' }],
    loginMethods: [{ recipeId: 'emailpassword', email: 'mfa@example.com', plainTextPassword: 'plain-pass-1234' }],
  };

  it('users with TOTP devices and an app without mfa_enabled: stopped before staging them, resumed once it is set', async () => {
    const file = payloadFile(emails(2), [totpUser]);
    const error = await run(file, { batchSize: 1, concurrency: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    expect((error as CliError).message).toBe(
      'record 3 (mfa-1) has TOTP devices, but app shop does not have mfa_enabled, and the core imports TOTP devices only into apps that have it: ' +
        'set it (PUT /recipe/multitenancy/app/v2 {"appId":"shop","coreConfig":{"mfa_enabled":true}}) and run the same command again. ' +
        'Stopped before staging it (chunks staged before are kept: the same command resumes).',
    );
    expect(core.staged.map((s) => s.email)).toEqual(['u0@example.com', 'u1@example.com']);

    core.mfaEnabled = true;
    const summary = await run(file, { batchSize: 1, concurrency: 1 });
    expect(summary).toMatchObject({
      resumedChunks: 2,
      staged: 3,
      imported: 3,
      secondFactors: { carriedAsTotp: 1, notCarried: 0 },
      metadataKeysDropped: { keys: 2, users: 1 },
      reportLines: 0,
      leftBehindLines: 1,
      warnings: [],
      exitCode: 0,
    });
    // What the core received: the devices, and the metadata without the credential-looking keys.
    const sent = core.bodies.flatMap((b) => b.users).find((u) => u.externalUserId === 'mfa-1') as typeof totpUser;
    expect(sent.totpDevices).toEqual(totpUser.totpDevices);
    expect(sent.userMetadata).toEqual({ plan: 'gold', github: { login: 'ada' } });
    expect(reportLines()).toEqual([
      {
        position: 3,
        sourceId: 'mfa-1',
        externalUserId: 'mfa-1',
        stage: 'convert',
        kind: 'left-behind',
        messages: [
          'userMetadata key github.access_token dropped: it looks like a credential, and tokens and secrets never enter user metadata',
          'userMetadata key apiKey dropped: it looks like a credential, and tokens and secrets never enter user metadata',
        ],
      },
    ]);
    const written = [
      readFileSync(join(dir, 'report.ndjson'), 'utf8'),
      readFileSync(join(dir, 'state.ndjson'), 'utf8'),
      JSON.stringify(summary),
    ].join('\n');
    for (const secret of [TOTP_SECRET, TOKEN, KEY, 'plain-pass-1234']) expect(written).not.toContain(secret);
  });

  it('the dry run says so and goes on: the core decides, nothing is staged', async () => {
    const file = payloadFile(emails(1), [totpUser]);
    const summary = await run(file, { dryRun: true });
    expect(summary).toMatchObject({ wouldImport: 2, secondFactors: { carriedAsTotp: 1, notCarried: 0 }, staged: 0 });
    expect(core.staged).toEqual([]);
  });
});
