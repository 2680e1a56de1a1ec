import { resolve } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterEach, expect, it, vi } from 'vitest';
import { ContextsBusyError, FunctionTimeoutError } from '../../bin/local/timeouts.js';
import { startWorkerPool, type WorkerPool } from '../../bin/local/worker-pool.js';

/**
 * The local runtime's execution contexts for the import worker (bin/local/worker-pool.ts): real
 * worker threads loading a TypeScript handler (with `#functions/*` imports) through tsx.
 */

const HANDLER = resolve(import.meta.dirname, 'fixtures', 'pool-handler.ts');
const ECHO_HANDLER = resolve(import.meta.dirname, 'fixtures', 'pool-handler-echo.ts');
const pools: WorkerPool[] = [];
const reports: string[] = [];

async function pool(size = 2, handlerPath: string | string[] = HANDLER): Promise<WorkerPool> {
  const started = await startWorkerPool({
    name: 'test-worker',
    handlerPath,
    size,
    env: { ...process.env, POOL_TEST_VARIABLE: 'from the services' },
    report: (m) => reports.push(m),
  });
  pools.push(started);
  return started;
}

function context(timeoutMs = 60_000): Context {
  const deadline = Date.now() + timeoutMs;
  const noop = () => undefined;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'test-worker',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:test-worker',
    memoryLimitInMB: '1024',
    awsRequestId: 'r1',
    logGroupName: '/aws/lambda/test-worker',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: noop,
    fail: noop,
    succeed: noop,
  };
}

type Info = { threadId: number; invocations: number; env?: string; functionName: string; remainingMs: number };
const invoke = <T>(p: WorkerPool, event: object, ctx = context()) => p.invoke(event, ctx) as Promise<T>;

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
  reports.length = 0;
  vi.restoreAllMocks();
});

it('runs each invocation in a warm worker thread with the services’ environment and a Lambda context', async () => {
  const p = await pool(2);
  expect(p.size).toBe(2);
  const [a, b] = (await Promise.all([1, 2].map(() => invoke<Info>(p, { action: 'info' })))) as [Info, Info];
  expect(a.threadId).not.toBe(b.threadId);
  expect(a.threadId).toBeGreaterThan(0);
  expect(a).toMatchObject({ env: 'from the services', functionName: 'test-worker', invocations: 1 });
  expect(a.remainingMs).toBeGreaterThan(55_000);
  expect(a.remainingMs).toBeLessThanOrEqual(60_000);
  // Module state survives between invocations of one context (a warm instance).
  const later = await Promise.all(Array.from({ length: 4 }, () => invoke<Info>(p, { action: 'info' })));
  const last = new Map<number, number>();
  for (const i of [a, b, ...later]) last.set(i.threadId, Math.max(last.get(i.threadId) ?? 0, i.invocations));
  expect(last.size).toBe(2);
  expect([...last.values()].reduce((n, count) => n + count, 0)).toBe(6);
});

it('runs CPU-bound invocations at the same time, one per context, and queues the rest', async () => {
  const p = await pool(2);
  type Spin = { threadId: number; start: number; end: number };
  const runs = await Promise.all(Array.from({ length: 3 }, () => invoke<Spin>(p, { action: 'spin', ms: 300 })));
  const [first, second, third] = runs.sort((x, y) => x.start - y.start) as [Spin, Spin, Spin];
  expect(second.start).toBeLessThan(first.end); // two threads spinning at once
  expect(third.start).toBeGreaterThanOrEqual(Math.min(first.end, second.end)); // the third waited for one
});

it('rejects when the handler throws and keeps the context', async () => {
  const p = await pool(2);
  const before = await invoke<Info>(p, { action: 'info' });
  const error = await p.invoke({ action: 'throw' }, context()).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  expect(String(error)).toBe('TypeError: boom');
  const after = await Promise.all([invoke<Info>(p, { action: 'info' }), invoke<Info>(p, { action: 'info' })]);
  expect(after.map((i) => i.threadId)).toContain(before.threadId);
  expect(reports).toEqual([]);
});

it.each(['exit', 'crash'])('replaces a context that dies (%s) and rejects only its invocation', async (action) => {
  const p = await pool(2);
  const threads = new Set(
    (await Promise.all([1, 2].map(() => invoke<Info>(p, { action: 'info' })))).map((i) => i.threadId),
  );
  const [dying, healthy] = await Promise.allSettled([
    p.invoke({ action }, context()),
    invoke<Info>(p, { action: 'sleep', ms: 200 }),
  ]);
  expect(dying.status).toBe('rejected');
  expect(healthy).toMatchObject({ status: 'fulfilled', value: { slept: true } });
  expect(reports.join('\n')).toMatch(/test-worker: an execution context died/);
  // Every later invocation succeeds; one of them runs in a fresh thread (a cold start).
  const after = await Promise.all([1, 2, 3, 4].map(() => invoke<Info>(p, { action: 'info' })));
  expect(after.some((i) => !threads.has(i.threadId))).toBe(true);
  expect(after.some((i) => i.invocations === 1)).toBe(true);
});

it('writes the handlers’ redacted log lines and console output to stdout', async () => {
  const p = await pool(2);
  const written: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    return true;
  });
  await invoke(p, { action: 'log' });
  await vi.waitFor(() => expect(written.join('')).toContain('console output of a context'), { timeout: 5000 });
  const line = written
    .join('')
    .split('\n')
    .find((l) => l.includes('pool log line'));
  expect(JSON.parse(line ?? '{}')).toMatchObject({ level: 'info', user: 'u1', plainTextPassword: '[redacted]' });
  expect(written.join('')).not.toContain('pool-secret-password');
});

it('lets invocations in flight finish on stop, then refuses new ones', async () => {
  const p = await pool(2);
  const inFlight = invoke<{ slept: boolean }>(p, { action: 'sleep', ms: 500 });
  await new Promise((r) => setTimeout(r, 50));
  const stopped = p.stop();
  await expect(p.invoke({ action: 'info' }, context())).rejects.toThrow(/stopping/);
  await expect(inFlight).resolves.toEqual(expect.objectContaining({ slept: true }));
  await stopped;
});

it('fails to start when the handler module cannot load', async () => {
  await expect(pool(2, resolve(import.meta.dirname, 'fixtures', 'missing-handler.ts'))).rejects.toThrow(
    /test-worker failed to load in a worker thread: .*missing-handler/,
  );
});

it('runs each invocation with the handler module it names when the contexts load several', async () => {
  // How the local runtime runs its password hashing routes (bin/local/hashing-routes.ts).
  const p = await pool(2, [HANDLER, ECHO_HANDLER]);
  const info = (await p.invoke({ action: 'info' }, context(), HANDLER)) as Info;
  const echo = (await p.invoke({ echo: 'hi' }, context(), ECHO_HANDLER)) as { echoed: string; threadId: number };
  const first = (await p.invoke({ action: 'info' }, context())) as Info;
  expect(info).toMatchObject({ functionName: 'test-worker', env: 'from the services' });
  expect(echo).toMatchObject({ echoed: 'hi' });
  expect(first.functionName).toBe('test-worker');
  await expect(p.invoke({}, context(), resolve(import.meta.dirname, 'elsewhere.ts'))).rejects.toThrow(
    /is not one of the pool's handlers/,
  );
  expect(reports).toEqual([]);
});

it('ends an invocation still running at its timeout, as Lambda does: rejected, its context replaced', async () => {
  const p = await pool(2);
  const threads = new Set(
    (await Promise.all([1, 2].map(() => invoke<Info>(p, { action: 'info' })))).map((i) => i.threadId),
  );
  const error = await p.invoke({ action: 'sleep', ms: 30_000 }, context(500)).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FunctionTimeoutError);
  expect((error as Error).message).toBe('Task timed out after 0.50 seconds');
  expect(reports.join('\n')).toMatch(
    /test-worker: Task timed out after 0\.50 seconds; its execution context ended \(replaced on next use\)/,
  );
  // The next invocations run, one of them in a fresh context (a cold start).
  const after = await Promise.all([1, 2].map(() => invoke<Info>(p, { action: 'info' })));
  expect(after.some((i) => !threads.has(i.threadId) && i.invocations === 1)).toBe(true);
});

it('refuses as busy an invocation that would get a context too late to do its work, and serves the others', async () => {
  const started = await startWorkerPool({
    name: 'test-worker',
    handlerPath: HANDLER,
    size: 2,
    env: process.env,
    report: (m) => reports.push(m),
    // As the hashing routes: a context is only worth having with at least 1 s of the timeout left.
    maxWaitMs: (ctx) => ctx.getRemainingTimeInMillis() - 1_000,
  });
  pools.push(started);
  const busy = [1, 2].map(() => started.invoke({ action: 'sleep', ms: 4_000 }, context()));
  const refused = await started.invoke({ action: 'info' }, context(1_500)).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(ContextsBusyError);
  // A caller with time to wait is served once the context is free, and the refused one left no trace.
  const patient = invoke<Info>(started, { action: 'info' });
  await Promise.all(busy);
  expect((await patient).threadId).toBeGreaterThan(0);
  expect(reports).toEqual([]);
});
