/**
 * One SDK test file in its own mocha process, as the SDK's own `npm test` runs it: `TEST_MODE=testing`,
 * its hooks (`--require test/hooks.js`), its fetch polyfill with Node's own fetch off, a 40-second
 * test timeout, `--exit`; the JSON reporter, read by report.ts. The SDK's test harness finds the
 * core through `SUPERTOKENS_CORE_HOST` and `SUPERTOKENS_CORE_PORT`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FileRun } from './report.js';

export const TEST_TIMEOUT_MS = 40_000;

/** The mocha arguments for one file of this checkout. */
export function mochaArgs(sdkDir: string, file: string): string[] {
  const polyfill = existsSync(join(sdkDir, 'test', 'fetch-polyfill.mjs'))
    ? ['--node-option', 'no-experimental-fetch', '-r', 'test/fetch-polyfill.mjs']
    : [];
  return [
    '--no-config',
    '--require',
    'test/hooks.js',
    '--timeout',
    String(TEST_TIMEOUT_MS),
    '--exit',
    ...polyfill,
    '--reporter',
    'json',
    file,
  ];
}

/** Runs one file; stops its process group after `fileTimeoutMs`. */
export function runTestFile(sdkDir: string, file: string, core: URL, fileTimeoutMs: number): Promise<FileRun> {
  const started = Date.now();
  const child = spawn(join(sdkDir, 'node_modules', '.bin', 'mocha'), mochaArgs(sdkDir, file), {
    cwd: sdkDir,
    env: {
      ...process.env,
      TEST_MODE: 'testing',
      SUPERTOKENS_CORE_HOST: core.hostname,
      SUPERTOKENS_CORE_PORT: core.port || (core.protocol === 'https:' ? '443' : '80'),
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  }, fileTimeoutMs);
  return new Promise((resolveRun) => {
    const finish = (exitCode: number | null) => {
      clearTimeout(timer);
      resolveRun({
        file,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        exitCode,
        timedOut,
        durationMs: Date.now() - started,
      });
    };
    child.once('error', (error) => {
      err.push(Buffer.from(String(error)));
      finish(null);
    });
    child.once('close', (code) => finish(code));
    // A process the tests left behind may hold the output open after mocha exited: stop it.
    child.once('exit', () => {
      setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // the group is gone already
        }
      }, 2_000).unref();
    });
  });
}
