import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import supertokens, { RecipeUserId } from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashForStore, startLegacyEndpoint } from '../../bin/examples/legacy-password-endpoint.mjs';
import { signatureHeader } from '../../functions/domain/password-hook/protocol.js';
import type { LocalProcess } from '../helpers/local-process.js';
import {
  coreCaller,
  createApp,
  initSdk,
  readNdjson,
  runCommand,
  startRuntime,
  stopRuntime,
} from './migrate-helpers.js';

/**
 * Users imported pending the password-migration hook (docs/password-migration-hook.md), signed in
 * through the unmodified supertokens-node against `npm start`, with the reference legacy endpoint
 * (bin/examples/legacy-password-endpoint.mjs) as the old system, and a misbehaving endpoint for
 * the outages: stopped, slow, 500, a redirect, garbage.
 */

const API_KEY = `hook-e2e-${randomBytes(12).toString('hex')}`;
const APP_ID = `hook-${randomBytes(4).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex'); // 48 characters
const BUDGET_MS = 1000;
const PASSWORDS: Record<string, string> = {
  'single1@example.com': `pw-single1-${randomBytes(6).toString('hex')}`,
  'bulk1@example.com': `pw-bulk1-${randomBytes(6).toString('hex')}`,
  'bulk2@example.com': `pw-bulk2-${randomBytes(6).toString('hex')}`,
  'race@example.com': `pw-race-${randomBytes(6).toString('hex')}`,
  'reset@example.com': `pw-reset-${randomBytes(6).toString('hex')}`,
  'outage@example.com': `pw-outage-${randomBytes(6).toString('hex')}`,
};
const NEW_PASSWORD = `pw-new-${randomBytes(6).toString('hex')}`;
const SINGLE = ['single1@example.com', 'race@example.com', 'reset@example.com', 'outage@example.com'];
const BULK = ['bulk1@example.com', 'bulk2@example.com'];

let runtime: LocalProcess | undefined;
let dir: string | undefined;
let legacy: { port: number; close(): Promise<void> } | undefined;
const verdicts: string[] = [];
/** The misbehaving endpoint: its mode is the first path segment. */
let bad: Server | undefined;
let badPort = 0;
const badRequests = new Map<string, number>();
const pendingSlow: ServerResponse[] = [];
let slowAbandoned = 0;
/** A port nothing listens on. */
let closedPort = 0;

const call = coreCaller(() => runtime!, API_KEY);
const core = (method: string, path: string, body?: unknown) => call(method, `/appid-${APP_ID}${path}`, body);

const pendingUser = (email: string, externalUserId: string) => ({
  externalUserId,
  loginMethods: [{ recipeId: 'emailpassword', email, passwordMigration: 'hook' }],
});

async function setHook(url: string): Promise<void> {
  const reply = await call('PUT', '/recipe/multitenancy/app/v2', {
    appId: APP_ID,
    coreConfig: { password_migration_hook_url: url },
  });
  expect(reply.status, reply.text).toBe(200);
}

/** A sign-in through the core's API, to read the status and headers the SDK turns into an error. */
async function rawSignIn(email: string, password: string): Promise<Response> {
  return runtime!.fetch(`/appid-${APP_ID}/public/recipe/signin`, {
    method: 'POST',
    headers: { 'api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
}

async function status(): Promise<{ pending: number; migrated: number }> {
  const reply = await core('GET', '/password-migration/status');
  expect(reply.status, reply.text).toBe(200);
  return { pending: reply.json.pending, migrated: reply.json.migrated };
}

function misbehave(request: IncomingMessage, response: ServerResponse): void {
  const mode = (request.url ?? '/').split('/')[1] ?? '';
  badRequests.set(mode, (badRequests.get(mode) ?? 0) + 1);
  request.resume();
  request.on('end', () => {
    if (mode === 'slow') {
      pendingSlow.push(response);
      response.on('close', () => {
        if (!response.writableEnded) slowAbandoned += 1;
      });
      return;
    }
    if (mode === 'error') {
      response.writeHead(500).end('{"status":"PASSWORD_MATCH"}');
    } else if (mode === 'redirect') {
      response.writeHead(302, { location: `http://127.0.0.1:${legacy?.port}/` }).end();
    } else if (mode === 'garbage') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"MAYBE"}');
    } else if (mode === 'large') {
      response.writeHead(200).end(JSON.stringify({ status: 'PASSWORD_MATCH', pad: 'x'.repeat(2000) }));
    } else {
      response.writeHead(404).end();
    }
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

beforeAll(async () => {
  const hashes: Record<string, string> = {};
  for (const [email, password] of Object.entries(PASSWORDS)) hashes[email] = await hashForStore(password, { N: 1024 });
  legacy = await startLegacyEndpoint({ secret: SECRET, hashes, onRequest: (e) => verdicts.push(e.verdict) });
  bad = createServer(misbehave);
  badPort = await listen(bad);
  const probe = createServer();
  closedPort = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));

  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY, BCRYPT_LOG_ROUNDS: '6' }, 'hook-e2e-'));
  await createApp(call, APP_ID, {
    password_migration_hook_url: `http://127.0.0.1:${legacy.port}/check`,
    password_migration_hook_secret: SECRET,
    password_migration_hook_timeout_ms: BUDGET_MS,
  });
  for (const [i, email] of SINGLE.entries()) {
    const imported = await core('POST', '/bulk-import/import', pendingUser(email, `legacy-single-${i}`));
    expect(imported.status, imported.text).toBe(200);
  }
  const staged = await core('POST', '/bulk-import/users', {
    users: BULK.map((email, i) => pendingUser(email, `legacy-bulk-${i}`)),
  });
  expect(staged.status, staged.text).toBe(200);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const counts = await Promise.all(
      ['NEW', 'PROCESSING'].map(async (s) => (await core('GET', `/bulk-import/users/count?status=${s}`)).json.count),
    );
    if (counts[0] + counts[1] === 0) break;
    if (Date.now() > deadline) throw new Error('the staged users were not imported');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const failed = await core('GET', '/bulk-import/users?status=FAILED');
  expect(failed.json?.users, failed.text).toEqual([]);
  initSdk('hook-e2e', runtime, APP_ID, API_KEY);
}, 180_000);

afterAll(async () => {
  for (const response of pendingSlow) response.destroy();
  await new Promise((resolve) => (bad ? bad.close(resolve) : resolve(undefined)));
  await legacy?.close();
  await stopRuntime(runtime, dir);
});

describe('password-migration hook through supertokens-node', () => {
  it('refuses bad hook settings with a 400 naming the key, and shows the secret as a fingerprint', async () => {
    const put = (coreConfig: Record<string, unknown>) =>
      call('PUT', '/recipe/multitenancy/app/v2', { appId: APP_ID, coreConfig });
    const cases: [Record<string, unknown>, string][] = [
      [{ password_migration_hook_url: 'http://legacy.example.com/check' }, 'password_migration_hook_url'],
      [{ password_migration_hook_url: 'ftp://127.0.0.1/check' }, 'password_migration_hook_url'],
      [{ password_migration_hook_secret: 'short' }, 'password_migration_hook_secret'],
      [{ password_migration_hook_timeout_ms: 99 }, 'password_migration_hook_timeout_ms'],
      [{ password_migration_hook_timeout_ms: 5001 }, 'password_migration_hook_timeout_ms'],
    ];
    for (const [coreConfig, key] of cases) {
      const reply = await put(coreConfig);
      expect(reply.status, JSON.stringify(coreConfig)).toBe(400);
      expect(reply.text).toContain(key);
    }
    const list = await call('GET', '/recipe/multitenancy/app/list/v2');
    const app = list.json.apps.find((a: { appId: string }) => a.appId === APP_ID);
    const shown = app.tenants.find((t: { tenantId: string }) => t.tenantId === 'public').coreConfig;
    expect(shown.password_migration_hook_secret).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(list.text.includes(SECRET)).toBe(false);
  });

  it('accepts the marker only with a hook configured, and never with a hash or a password', async () => {
    const other = `nohook-${randomBytes(4).toString('hex')}`;
    await createApp(call, other);
    const user = pendingUser('nohook@example.com', 'nohook-1');
    const single = await call('POST', `/appid-${other}/bulk-import/import`, user);
    expect(single.status).toBe(400);
    expect(single.text).toContain('password_migration_hook_url');
    const staged = await call('POST', `/appid-${other}/bulk-import/users`, { users: [user] });
    expect(staged.status).toBe(400);
    expect(staged.text).toContain('password_migration_hook_url');
    const dry = await call('POST', `/appid-${other}/bulk-import/users?dryRun=true`, { users: [user] });
    expect(dry.status).toBe(400);
    expect(dry.text).toContain('password_migration_hook_url');
    const both = await core('POST', '/bulk-import/import', {
      loginMethods: [
        { recipeId: 'emailpassword', email: 'both@example.com', passwordMigration: 'hook', plainTextPassword: 'x' },
      ],
    });
    expect(both.status).toBe(400);
    expect(both.json).toEqual({
      errors: [
        'passwordMigration cannot be given together with passwordHash or plainTextPassword for an emailpassword recipe.',
      ],
    });
  });

  it('counts and lists the pending users before any sign-in', async () => {
    expect(await status()).toEqual({ pending: 6, migrated: 0 });
    const first = await core('GET', '/password-migration/pending?limit=4');
    expect(first.status, first.text).toBe(200);
    expect(first.json.users).toHaveLength(4);
    expect(typeof first.json.nextPaginationToken).toBe('string');
    const rest = await core(
      'GET',
      `/password-migration/pending?limit=4&paginationToken=${encodeURIComponent(first.json.nextPaginationToken)}`,
    );
    expect(rest.json.nextPaginationToken).toBeUndefined();
    const emails = [...first.json.users, ...rest.json.users].map((u: { email: string }) => u.email).sort();
    expect(emails).toEqual(Object.keys(PASSWORDS).sort());
    for (const u of [...first.json.users, ...rest.json.users]) expect(u.userId).toMatch(/^legacy-/);
    expect((await core('GET', '/password-migration/pending?limit=501')).status).toBe(400);
    expect((await core('GET', '/password-migration/pending?limit=0')).status).toBe(400);
    expect((await core('GET', '/password-migration/pending?paginationToken=%21')).status).toBe(400);
  });

  it('a sign-up with a pending email answers as for any existing email', async () => {
    const reply = await EmailPassword.signUp('public', 'bulk1@example.com', 'another-password-1');
    expect(reply.status).toBe('EMAIL_ALREADY_EXISTS_ERROR');
  });

  it('first sign-ins go through the hook; wrong passwords are refused; later sign-ins need no hook', async () => {
    for (const email of ['single1@example.com', ...BULK]) {
      expect((await EmailPassword.signIn('public', email, `${PASSWORDS[email]}x`)).status, email).toBe(
        'WRONG_CREDENTIALS_ERROR',
      );
      const first = await EmailPassword.signIn('public', email, PASSWORDS[email] as string);
      expect(first.status, email).toBe('OK');
      if (first.status === 'OK') expect(first.user.id).toMatch(/^legacy-/);
    }
    expect(await status()).toEqual({ pending: 3, migrated: 3 });
    // The old system is gone: the core now holds the passwords under its own hash.
    await setHook(`http://127.0.0.1:${closedPort}/gone`);
    for (const email of ['single1@example.com', ...BULK]) {
      expect((await EmailPassword.signIn('public', email, PASSWORDS[email] as string)).status, email).toBe('OK');
      expect((await EmailPassword.signIn('public', email, `${PASSWORDS[email]}x`)).status, email).toBe(
        'WRONG_CREDENTIALS_ERROR',
      );
    }
    // Every request the core sent verified at the reference endpoint.
    expect(verdicts.filter((v) => v.startsWith('signature-'))).toEqual([]);
    expect(verdicts.filter((v) => v === 'match')).toHaveLength(3);
    expect(verdicts.filter((v) => v === 'mismatch')).toHaveLength(3);
  });

  it('an unavailable old system answers 503 with Retry-After, never wrong credentials, and the user stays pending', async () => {
    const email = 'outage@example.com';
    const password = PASSWORDS[email] as string;
    for (const mode of ['stopped', 'slow', 'error', 'redirect', 'garbage', 'large']) {
      await setHook(
        mode === 'stopped' ? `http://127.0.0.1:${closedPort}/${mode}` : `http://127.0.0.1:${badPort}/${mode}`,
      );
      const reply = await rawSignIn(email, password);
      expect(reply.status, mode).toBe(503);
      expect(Number(reply.headers.get('retry-after')), mode).toBeGreaterThanOrEqual(1);
      const text = await reply.text();
      expect(text, mode).not.toContain('WRONG_CREDENTIALS');
      await expect(EmailPassword.signIn('public', email, password), mode).rejects.toThrow(/503/);
    }
    // The slow hook never answered: the core gave up on it within its budget.
    expect(pendingSlow.length).toBeGreaterThan(0);
    expect(slowAbandoned).toBe(pendingSlow.length);
    const pending = await core('GET', '/password-migration/pending');
    expect(pending.json.users.map((u: { email: string }) => u.email)).toContain(email);
  });

  it('with the old system stopped, a pending email, an unknown email and a wrong password get the same answer', async () => {
    // A URL of its own: a breaker of its own in every execution environment.
    await setHook(`http://127.0.0.1:${closedPort}/oracle`);
    const pending = 'outage@example.com';
    // One pending sign-in finds the old system stopped (sequential requests reach the same
    // execution environment of the local runtime's pool: the one that just finished).
    const found = await rawSignIn(pending, PASSWORDS[pending] as string);
    expect(found.status).toBe(503);
    await found.text();
    const answers = [];
    for (const [email, password] of [
      ['nobody-here@example.com', 'any-password-1'],
      ['single1@example.com', 'a-wrong-password-1'],
      [pending, PASSWORDS[pending] as string],
    ] as const) {
      const reply = await rawSignIn(email, password);
      answers.push({ status: reply.status, retryAfter: reply.headers.get('retry-after'), body: await reply.text() });
    }
    expect(answers[0]).toEqual({
      status: 503,
      retryAfter: '5',
      body: expect.stringContaining('The legacy password system is unavailable; retry later'),
    });
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    // The SDK sees the same error for an unknown email as for the pending user.
    await expect(EmailPassword.signIn('public', 'nobody-here@example.com', 'any-password-1')).rejects.toThrow(/503/);
    await expect(EmailPassword.signIn('public', pending, PASSWORDS[pending] as string)).rejects.toThrow(/503/);
    // Once the old system answers again, wrong credentials are wrong credentials for everyone.
    await setHook(`http://127.0.0.1:${legacy?.port}/check`);
    expect((await EmailPassword.signIn('public', pending, 'a-wrong-password-1')).status).toBe(
      'WRONG_CREDENTIALS_ERROR',
    );
    expect((await EmailPassword.signIn('public', 'nobody-here@example.com', 'any-password-1')).status).toBe(
      'WRONG_CREDENTIALS_ERROR',
    );
  });

  it('the circuit opens after the documented count of failures in each execution environment', async () => {
    await setHook(`http://127.0.0.1:${badPort}/error/breaker`);
    const environments = Math.max(2, availableParallelism());
    const attempts = 5 * environments + 5;
    for (let i = 0; i < attempts; i++) {
      const reply = await rawSignIn('outage@example.com', PASSWORDS['outage@example.com'] as string);
      expect(reply.status).toBe(503);
      await reply.text();
    }
    const calls = badRequests.get('error') ?? 0;
    // Earlier tests called the error mode once per environment at most through the SDK and the raw call.
    expect(calls).toBeLessThanOrEqual(5 * environments + 2);
    expect(calls).toBeLessThan(attempts);
  });

  it('two concurrent first sign-ins of one user store exactly one hash', async () => {
    await setHook(`http://127.0.0.1:${legacy?.port}/check`);
    const before = await status();
    const email = 'race@example.com';
    const both = await Promise.all([1, 2].map(() => EmailPassword.signIn('public', email, PASSWORDS[email] as string)));
    expect(both.map((r) => r.status)).toEqual(['OK', 'OK']);
    const after = await status();
    expect(after.migrated - before.migrated).toBe(1);
    expect(before.pending - after.pending).toBe(1);
  });

  it('a password reset completes the migration without the hook', async () => {
    await setHook(`http://127.0.0.1:${closedPort}/gone`);
    const before = await status();
    const email = 'reset@example.com';
    const user = (await supertokens.listUsersByAccountInfo('public', { email }))[0];
    expect(user).toBeDefined();
    const created = await EmailPassword.createResetPasswordToken('public', user!.id, email);
    expect(created.status).toBe('OK');
    if (created.status !== 'OK') return;
    const consumed = await EmailPassword.consumePasswordResetToken('public', created.token);
    expect(consumed.status).toBe('OK');
    const updated = await EmailPassword.updateEmailOrPassword({
      recipeUserId: new RecipeUserId(user!.loginMethods[0]!.recipeUserId.getAsString()),
      password: NEW_PASSWORD,
    });
    expect(updated).toEqual({ status: 'OK' });
    expect((await EmailPassword.signIn('public', email, NEW_PASSWORD)).status).toBe('OK');
    const after = await status();
    expect(after).toEqual({ pending: before.pending - 1, migrated: before.migrated });
    const pending = await core('GET', '/password-migration/pending');
    expect(pending.json.users.map((u: { email: string }) => u.email)).not.toContain(email);
  });

  it('the reference endpoint refuses a request signed with another secret and accepts the core-style signature', async () => {
    const body = JSON.stringify({ email: 'bulk1@example.com', password: PASSWORDS['bulk1@example.com'] });
    const now = Math.floor(Date.now() / 1000);
    const send = (secret: string) =>
      fetch(`http://127.0.0.1:${legacy?.port}/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-core-signature': signatureHeader(secret, now, body) },
        body,
      });
    const forged = await send('another-secret-of-at-least-32-characters!');
    expect(forged.status).toBe(401);
    const genuine = await send(SECRET);
    expect(genuine.status).toBe(200);
    expect(await genuine.json()).toEqual({ status: 'PASSWORD_MATCH' });
  });

  it('`auth-core pending` writes the users still pending as NDJSON', async () => {
    const out = join(dir as string, 'pending.ndjson');
    const result = await runCommand([
      'pending',
      '--app',
      APP_ID,
      '--core',
      runtime!.url,
      '--api-key',
      API_KEY,
      '--out',
      out,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const rows = readNdjson(readFileSync(out, 'utf8'));
    expect(rows).toEqual([{ userId: 'legacy-single-3', email: 'outage@example.com', timeJoined: expect.any(Number) }]);
    expect(result.stderr).toContain('1 pending users written');
    expect(`${result.stdout}${result.stderr}`.includes(API_KEY)).toBe(false);
  });

  it('never writes a password or the hook secret to the runtime output', () => {
    const output = `${runtime?.stdout}\n${runtime?.stderr}`;
    for (const password of [...Object.values(PASSWORDS), NEW_PASSWORD]) expect(output.includes(password)).toBe(false);
    expect(output.includes(SECRET)).toBe(false);
    expect(output).toContain('password-migration hook is unavailable');
  });
});
