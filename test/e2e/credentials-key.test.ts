/**
 * The local runtime's key for credentials at rest: a 0600 file of 32 random bytes under DATA_DIR,
 * created on the first start and reused by the next ones, so users staged before a restart import
 * after it. Losing the file loses what it sealed: the users still staged end FAILED with a message
 * that says so — no crash, no retry loop — and the runtime says so when it starts.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { UNREADABLE_CREDENTIALS_MESSAGES } from '#functions/storage/staging/sealing.js';
import { KEY_FILE_NAME } from '../../bin/local/key-file.js';
import type { LocalProcess } from '../helpers/local-process.js';
import { killHard, useRuntimes } from '../helpers/runtimes.js';

const APP_ID = `keys-${Math.random().toString(36).slice(2, 8)}`;
const PASSWORD = 'restart-test-password';
const PASSWORD_HASH = bcrypt.hashSync(PASSWORD, bcrypt.genSaltSync(4));
const DRAIN_TIMEOUT_MS = 10 * 60_000;

const runtimes = useRuntimes();

async function start(dataDir: string): Promise<LocalProcess> {
  const runtime = await runtimes.start({ dataDir, env: { API_KEYS: undefined } });
  await runtime.waitUntilReady();
  return runtime;
}

/** One request, answered 200; a 503 (staging out of its budget on a busy machine) is sent again, the same body, after its Retry-After. */
async function request(runtime: LocalProcess, method: string, path: string, body?: unknown, gzip = false) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  for (let attempt = 1; ; attempt++) {
    const response = await runtime.fetch(path, {
      method,
      headers: { 'content-type': 'application/json', ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
      ...(payload === undefined ? {} : { body: gzip ? gzipSync(payload) : payload }),
    });
    const text = await response.text();
    if (response.status === 503 && attempt < 20) {
      await new Promise((r) =>
        setTimeout(r, Math.min(5_000, 1_000 * Number(response.headers.get('retry-after') ?? '1'))),
      );
      continue;
    }
    if (response.status !== 200) throw new Error(`${method} ${path} → ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text);
  }
}

const count = async (runtime: LocalProcess, status: string) =>
  (await request(runtime, 'GET', `/appid-${APP_ID}/bulk-import/users/count?status=${status}`)).count as number;
const pending = async (runtime: LocalProcess) => (await count(runtime, 'NEW')) + (await count(runtime, 'PROCESSING'));
const imported = async (runtime: LocalProcess) =>
  (await request(runtime, 'GET', `/appid-${APP_ID}/users/count`)).count as number;

function users(prefix: string, n: number) {
  return Array.from({ length: n }, (_, i) => ({
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email: `${prefix}-${i}@example.com`,
        passwordHash: PASSWORD_HASH,
        hashingAlgorithm: 'BCRYPT',
      },
    ],
  }));
}

/** Stages `n` users and SIGKILLs the runtime at once; returns how many were still waiting for import. */
async function stageThenKill(runtime: LocalProcess, dir: string, prefix: string, n: number): Promise<number> {
  await request(runtime, 'POST', `/appid-${APP_ID}/bulk-import/users`, { users: users(prefix, n) }, true);
  const waiting = await pending(runtime);
  await killHard(runtime, dir);
  return waiting;
}

async function drain(runtime: LocalProcess): Promise<void> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while ((await pending(runtime)) > 0) {
    if (Date.now() > deadline) throw new Error(`import did not finish:\n${runtime.describe()}`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

describe('the local key file', () => {
  it('is created 0600 on first start, reused after a restart, and its loss fails the staged users clearly', {
    timeout: 25 * 60_000,
  }, async () => {
    const dir = runtimes.dataDir();
    const keyFile = join(dir, KEY_FILE_NAME);

    // --- First start: the key file appears; users are staged, the runtime dies before importing them all.
    const first = await start(dir);
    expect(first.stdout).toContain(`Key:       ${keyFile} (created now;`);
    const stat = statSync(keyFile);
    expect(stat.mode & 0o777).toBe(0o600);
    expect(stat.size).toBe(32);
    const key = readFileSync(keyFile);
    await request(first, 'PUT', '/recipe/multitenancy/app/v2', { appId: APP_ID });
    const waiting = await stageThenKill(first, dir, 'kept', 1_500);
    expect(waiting, 'the import finished before the runtime could be killed').toBeGreaterThan(0);

    // --- Restart: the same key opens what the first run sealed; every user imports and signs in.
    const second = await start(dir);
    expect(second.stdout).toContain(`Key:       ${keyFile} (existing;`);
    expect(readFileSync(keyFile).equals(key)).toBe(true);
    expect(second.stderr).not.toContain('A new key file was created');
    await drain(second);
    expect(await count(second, 'FAILED')).toBe(0);
    expect(await imported(second)).toBe(1_500);
    const signin = await request(second, 'POST', `/appid-${APP_ID}/public/recipe/signin`, {
      email: 'kept-7@example.com',
      password: PASSWORD,
    });
    expect(signin.status).toBe('OK');

    // --- More users staged, the runtime dies again, and the key file is lost.
    const lostWaiting = await stageThenKill(second, dir, 'lost', 300);
    expect(lostWaiting).toBeGreaterThan(0);
    rmSync(keyFile);

    // --- A new key: the runtime says what it means, and the users it cannot open end FAILED.
    const third = await start(dir);
    expect(third.stdout).toContain(`Key:       ${keyFile} (created now;`);
    expect(third.stderr).toContain('A new key file was created');
    expect(readFileSync(keyFile).equals(key)).toBe(false);
    await drain(third);
    // (The second run may import a few more between the count and the kill.)
    const failed = await count(third, 'FAILED');
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThanOrEqual(lostWaiting);
    expect(await imported(third)).toBe(1_500 + 300 - failed);
    const page = await request(third, 'GET', `/appid-${APP_ID}/bulk-import/users?status=FAILED&limit=500`);
    expect(new Set(page.users.map((u: { errorMessage: string }) => u.errorMessage))).toEqual(
      new Set([UNREADABLE_CREDENTIALS_MESSAGES['other-key']]),
    );
    // Nothing comes back for a retry: the counts stay where they are.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await count(third, 'FAILED')).toBe(failed);
    expect(await pending(third)).toBe(0);
    expect(`${third.stdout}${third.stderr}`).not.toContain(PASSWORD_HASH);
  });
});
