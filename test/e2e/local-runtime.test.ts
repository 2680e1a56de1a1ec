import { mkdirSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dynamoDbLocalProcessesMentioning, processRunning, waitUntil, watchdogOf } from '../helpers/local-process.js';
import { useRuntimes } from '../helpers/runtimes.js';

/**
 * `npm start` as a user runs it: a real child process (`node --import tsx bin/local.ts`) with its
 * own port and data directory, talked to over HTTP.
 */

const { start, dataDir } = useRuntimes();

async function text(response: Response): Promise<string> {
  return (await response.text()).replace(/\n$/, '');
}

describe('local runtime, persisted data', () => {
  it('serves, survives SIGKILL without an orphaned JVM, keeps the data, and stops cleanly on SIGINT', async () => {
    const dir = dataDir();

    // First run: banner, /hello, create an app.
    const first = await start({ dataDir: dir, env: { API_KEYS: undefined } });
    const { dynamodbPid: firstJava } = await first.waitUntilReady();
    expect(first.stdout).toContain(`URL:       ${first.url}`);
    expect(first.stdout).toMatch(/API keys:\s+not required/);
    expect(first.stdout).toContain(dir);
    expect(first.pidFile()).toMatchObject({ runtimePid: first.child.pid, dynamodbPid: firstJava });

    const hello = await first.fetch('/hello');
    expect(hello.status).toBe(200);
    expect(await text(hello)).toBe('Hello');

    const created = await first.fetch('/recipe/multitenancy/app/v2', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ appId: 'e2e-app' }),
    });
    expect(created.status).toBe(200);
    expect(await created.json()).toEqual({ status: 'OK', createdNew: true });

    // Crash: SIGKILL the runtime; its watchdog stops DynamoDB Local within about a second.
    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(await waitUntil(() => !processRunning(firstJava), 5000)).toBe(true);
    expect(dynamoDbLocalProcessesMentioning(dir)).toEqual([]);

    // Restart on the same directory: the app is still there.
    const second = await start({ dataDir: dir });
    const { dynamodbPid: secondJava } = await second.waitUntilReady();
    expect(second.pidFile()).toMatchObject({ runtimePid: second.child.pid, dynamodbPid: secondJava });
    const list = await second.fetch('/recipe/multitenancy/app/list/v2');
    expect(list.status).toBe(200);
    const body = (await list.json()) as { status: string; apps: { appId: string }[] };
    expect(body.status).toBe('OK');
    expect(body.apps.map((a) => a.appId)).toContain('e2e-app');

    // A second runtime on the same directory is refused while this one runs.
    const intruder = await start({ dataDir: dir });
    expect((await intruder.exited).code).toBe(1);
    expect(intruder.stderr).toContain(`Another local runtime (pid ${second.child.pid}) is using ${dir}`);
    expect(processRunning(secondJava)).toBe(true);

    // A crash the watchdog cannot clean up (it dies too): the next start stops the JVM recorded
    // in the pid file before opening the database.
    const watchdog = watchdogOf(second.child.pid as number);
    expect(watchdog).toBeDefined();
    process.kill(watchdog as number, 'SIGKILL');
    second.kill('SIGKILL');
    await second.exited;
    await new Promise((r) => setTimeout(r, 1500));
    expect(processRunning(secondJava)).toBe(true);

    const third = await start({ dataDir: dir });
    await third.waitUntilReady();
    expect(third.stdout).toContain(`Stopped a DynamoDB Local left over from an earlier run (pid ${secondJava})`);
    expect(processRunning(secondJava)).toBe(false);
    const again = await third.fetch('/recipe/multitenancy/app/list/v2');
    expect(((await again.json()) as { apps: { appId: string }[] }).apps.map((a) => a.appId)).toContain('e2e-app');

    // Ctrl-C: exit 0, JVM gone, pid file removed.
    const thirdJava = third.pidFile()?.dynamodbPid as number;
    third.kill('SIGINT');
    expect(await third.exited).toEqual({ code: 0, signal: null });
    expect(processRunning(thirdJava)).toBe(false);
    expect(dynamoDbLocalProcessesMentioning(dir)).toEqual([]);
    expect(third.pidFile()).toBeUndefined();
  });
});

describe('local runtime, in memory with API keys', () => {
  const apiKey = 'e2e-local-runtime-key-0123456789';

  it('serves from memory, requires the key except for /hello, limits bodies, stops on SIGTERM', async () => {
    const dir = dataDir();
    const runtime = await start({ dataDir: dir, args: ['--in-memory'], env: { API_KEYS: apiKey } });
    const { dynamodbPid } = await runtime.waitUntilReady();
    expect(runtime.stdout).toMatch(/Data:\s+in memory/);
    expect(runtime.stdout).toMatch(/API keys:\s+required/);
    expect(runtime.stdout).not.toContain(apiKey);
    expect(runtime.pidFile()).toBeUndefined();

    const hello = await runtime.fetch('/hello');
    expect(hello.status).toBe(200);
    expect(await text(hello)).toBe('Hello');

    const withoutKey = await runtime.fetch('/recipe/multitenancy/app/list/v2');
    expect(withoutKey.status).toBe(401);
    expect(await text(withoutKey)).toBe('Invalid API key');

    const withKey = await runtime.fetch('/recipe/multitenancy/app/list/v2', { headers: { 'api-key': apiKey } });
    expect(withKey.status).toBe(200);
    expect(((await withKey.json()) as { status: string }).status).toBe('OK');

    // API Gateway's 10 MB body limit.
    const tooLarge = await runtime.fetch('/recipe/multitenancy/app/v2', {
      method: 'PUT',
      headers: { 'api-key': apiKey, 'content-type': 'application/json' },
      body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('content-type')).toContain('application/json');
    expect(await text(tooLarge)).toBe('{"message":"Request Entity Too Large"}');

    runtime.kill('SIGTERM');
    expect(await runtime.exited).toEqual({ code: 0, signal: null });
    expect(processRunning(dynamodbPid)).toBe(false);
  });
});

describe('local runtime, start-up problems', () => {
  it('says clearly that Java is missing and exits non-zero', async () => {
    const bin = join(dataDir(), 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    const runtime = await start({ env: { PATH: bin } });
    const { code } = await runtime.exited;
    expect(code).not.toBe(0);
    expect(runtime.stderr).toContain('DynamoDB Local needs Java 17 or newer');
    expect(runtime.stderr).toContain('make sure `java` is on PATH');
  });

  it('says clearly that the port is busy and exits non-zero', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    try {
      const port = (blocker.address() as { port: number }).port;
      const runtime = await start({ port, args: ['--in-memory'] });
      const { code } = await runtime.exited;
      expect(code).toBe(1);
      expect(runtime.stderr).toContain(`Port ${port} is already in use`);
      expect(runtime.stdout).not.toContain('DynamoDB Local pid');
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});
