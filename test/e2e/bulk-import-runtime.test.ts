import { afterAll, expect, it } from 'vitest';
import { LocalProcess } from '../helpers/local-process.js';

/**
 * `npm start`, then `POST /bulk-import/users`: the users end up imported with no extra step (the
 * runtime's own pollers drive the worker). A restart re-sends what fauxqs (in memory) lost.
 */
const started: LocalProcess[] = [];
afterAll(async () => {
  for (const p of started) await p.dispose();
});

const HASH = '$2a$04$abcdefghijklmnopqrstuu5XwPGRwEj1m5dc8x1fFLhzmkmRkp4qC';
const PLAIN = 'e2e-Plain-Password-1';

async function json(url: string, init?: RequestInit): Promise<any> {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json' } });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

async function pending(base: string): Promise<number> {
  const n = await json(`${base}/bulk-import/users/count?status=NEW`);
  const p = await json(`${base}/bulk-import/users/count?status=PROCESSING`);
  return n.body.count + p.body.count;
}

it('npm start imports staged users without any extra step, and logs no credentials', async () => {
  const runtime = await LocalProcess.start({ args: ['--in-memory'], env: { BCRYPT_LOG_ROUNDS: '4' } });
  started.push(runtime);
  await runtime.waitUntilReady();
  expect(runtime.stdout).toMatch(/SQS: +fauxqs at http:\/\/127\.0\.0\.1:\d+/);
  // The import worker runs in worker threads, one per core (bin/local/worker-pool.ts).
  const [, batches, threads] =
    runtime.stdout.match(/Import: +worker ×(\d+) \(batches at once, in (\d+) worker threads\)/) ?? [];
  expect(Number(threads)).toBeGreaterThanOrEqual(2);
  expect(Number(batches)).toBeGreaterThanOrEqual(Number(threads));
  const users = Array.from({ length: 30 }, (_, i) => ({
    loginMethods: [
      i === 0
        ? { recipeId: 'emailpassword', email: `e2e${i}@example.com`, plainTextPassword: PLAIN }
        : { recipeId: 'emailpassword', email: `e2e${i}@example.com`, passwordHash: HASH, hashingAlgorithm: 'BCRYPT' },
    ],
  }));
  const staged = await json(`${runtime.url}/bulk-import/users`, { method: 'POST', body: JSON.stringify({ users }) });
  expect(staged.status).toBe(200);
  const deadline = Date.now() + 60_000;
  while ((await pending(runtime.url)) > 0) {
    if (Date.now() > deadline) throw new Error('staged users were not imported');
    await new Promise((r) => setTimeout(r, 250));
  }
  expect((await json(`${runtime.url}/bulk-import/users/count`)).body.count).toBe(0);
  expect((await json(`${runtime.url}/users/count`)).body.count).toBe(30);
  const signin = await json(`${runtime.url}/recipe/signin`, {
    method: 'POST',
    body: JSON.stringify({ email: 'e2e0@example.com', password: PLAIN }),
  });
  expect(signin.body.status).toBe('OK');
  expect(runtime.stdout).not.toContain(PLAIN);
  expect(runtime.stdout).not.toContain(HASH);
  expect(runtime.stderr).not.toContain(PLAIN);
});

it('keeps answering while the worker threads hash, and stops cleanly on SIGTERM mid-import', async () => {
  const runtime = await LocalProcess.start({ args: ['--in-memory'], env: { BCRYPT_LOG_ROUNDS: '10' } });
  started.push(runtime);
  await runtime.waitUntilReady();
  const users = Array.from({ length: 80 }, (_, i) => ({
    loginMethods: [{ recipeId: 'emailpassword', email: `term${i}@example.com`, plainTextPassword: PLAIN }],
  }));
  const staged = await json(`${runtime.url}/bulk-import/users`, { method: 'POST', body: JSON.stringify({ users }) });
  expect(staged.status).toBe(200);
  // Wait until batches are being hashed (some users imported, most not).
  const deadline = Date.now() + 60_000;
  while ((await pending(runtime.url)) === users.length) {
    if (Date.now() > deadline) throw new Error('the import did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  // Hashing runs in worker threads: the HTTP server is not blocked by it.
  const before = performance.now();
  expect((await fetch(`${runtime.url}/hello`)).status).toBe(200);
  expect(performance.now() - before).toBeLessThan(2000);

  const signalled = Date.now();
  runtime.kill('SIGTERM');
  expect(await runtime.exited).toEqual({ code: 0, signal: null });
  expect(Date.now() - signalled).toBeLessThan(20_000);
  expect(runtime.stdout).toContain('Stopped.');
  expect(runtime.stderr).not.toMatch(/threw|died|failed/);
});
