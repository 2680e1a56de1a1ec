/**
 * Measurement 13, how large a staging request should be (docs/migration-command.md "Request sizes"):
 * - staging throughput of `auth-core migrate --no-wait` with its default `--batch-size auto`
 *   (requests sized from how long the core takes) against the same command with fixed 10,000-user
 *   requests (`--batch-size 10000`, the API's limit), the same export size, in the same run, one
 *   after the other on a drained runtime: users/s from the command's start to its exit (every user
 *   staged), with the requests each sent and the 503s it met and sent again;
 * - the largest single request the local core stages inside its budget on this machine: one
 *   `POST /bulk-import/users` at a time, from 10,000 users down, each into a fresh app on a drained
 *   runtime, until one is answered 200 at the first try.
 * Every run waits for the import of what it staged before the next starts (not timed), so the
 * import of one run does not slow the next.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import buildCommand, { COMMAND_ENTRY } from '../../test/helpers/command.js';
import { createApp, type Runtime, waitUntilImported } from '../lib/runtime.js';
import { cheapBcryptHash, importUsers, shortId } from '../lib/users.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** The API's limit, and the fixed size the adaptive requests are compared with. */
const FIXED = 10_000;

interface CommandRun {
  readonly ms: number;
  /** Staging requests the run sent for the first time (chunks). */
  readonly requests: number;
  /** Answers it met that said "not now" and that it sent again. */
  readonly retries: number;
}

/** `migrate --no-wait` of an import payload of `n` users with `--batch-size <size>`; then the import drained. */
async function stageWithCommand(runtime: Runtime, dir: string, n: number, size: string): Promise<CommandRun> {
  const appId = `size-${shortId()}`;
  await createApp(runtime, appId);
  const hash = await cheapBcryptHash('bench-sizes-password');
  const file = join(dir, `${appId}.ndjson`);
  writeFileSync(
    file,
    `${importUsers(`${appId}-u`, n, { kind: 'hash', passwordHash: hash, hashingAlgorithm: 'BCRYPT' })
      .map((u) => JSON.stringify(u))
      .join('\n')}\n`,
  );
  const state = join(dir, `${appId}.state.ndjson`);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      COMMAND_ENTRY,
      'migrate',
      file,
      '--from',
      'supertokens',
      '--app',
      appId,
      '--core',
      runtime.process.url,
      '--batch-size',
      size,
      '--no-wait',
      '--report',
      join(dir, `${appId}.report.ndjson`),
      '--state',
      state,
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, AUTH_CORE_API_KEY: '' } },
  );
  let err = '';
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const [code] = (await once(child, 'exit')) as [number];
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`migrate --batch-size ${size} exited ${code}: ${err.slice(-2000)}`);
  const planned = readFileSync(state, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"planned"')).length;
  await waitUntilImported(runtime, appId, 500, 600_000);
  return { ms, requests: planned, retries: (err.match(/^retrying/gm) ?? []).length };
}

/** One run: the adaptive requests, then the fixed ones, for the same number of users. */
export async function adaptiveVsFixed(runtime: Runtime, n: number): Promise<Record<string, number>> {
  buildCommand();
  const dir = mkdtempSync(join(tmpdir(), 'bench-sizes-'));
  try {
    const auto = await stageWithCommand(runtime, dir, n, 'auto');
    const fixed = await stageWithCommand(runtime, dir, n, String(FIXED));
    const autoUsersPerSecond = (n * 1000) / auto.ms;
    const fixedUsersPerSecond = (n * 1000) / fixed.ms;
    return {
      autoUsersPerSecond,
      fixedUsersPerSecond,
      ratio: autoUsersPerSecond / fixedUsersPerSecond,
      autoRequests: auto.requests,
      autoRetries: auto.retries,
      fixedRequests: fixed.requests,
      fixedRetries: fixed.retries,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The largest of `sizes` (tried from the largest down) that one staging request stages inside the
 * core's budget at the first try; its time. 0 when none did.
 */
export async function largestInBudget(runtime: Runtime, sizes: readonly number[]): Promise<Record<string, number>> {
  const hash = await cheapBcryptHash('bench-sizes-password');
  let tried = 0;
  for (const size of [...sizes].sort((a, b) => b - a)) {
    tried++;
    const appId = `fit-${shortId()}`;
    await createApp(runtime, appId);
    const users = importUsers(`${appId}-u`, size, { kind: 'hash', passwordHash: hash, hashingAlgorithm: 'BCRYPT' });
    const started = performance.now();
    const response = await runtime.process.fetch(`/appid-${appId}/bulk-import/users`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'idempotency-key': `bench-fit-${size}`,
      },
      body: gzipSync(JSON.stringify({ users })),
    });
    await response.text();
    const ms = performance.now() - started;
    // What a request cut short staged is imported too: drained before the next size is tried.
    await waitUntilImported(runtime, appId, 500, 600_000);
    if (response.status === 200) return { largestUsers: size, largestMs: ms, sizesTried: tried };
    if (response.status !== 503) throw new Error(`staging ${size} users answered ${response.status}`);
  }
  return { largestUsers: 0, largestMs: Number.NaN, sizesTried: tried };
}
