/**
 * The core the SDK's tests talk to: one given by URL, or this checkout's `npm start --
 * --in-memory` on a free port, stopped when the run ends (docs/sdk-compatibility.md).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../local/dynamodb.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const READY_WITHIN_MS = 180_000;

export interface Core {
  readonly url: URL;
  /** What the report says the tests ran against. */
  readonly description: string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once `GET /hello` answers `Hello` (or throws after `withinMs`, or when `stillRunning` says no). */
async function waitForHello(url: URL, withinMs: number, stillRunning: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      const response = await fetch(new URL('/hello', url), { signal: AbortSignal.timeout(5_000) });
      if (response.ok && (await response.text()).trim() === 'Hello') return;
    } catch {
      // not listening yet
    }
    if (!stillRunning()) throw new Error('the core exited before it answered /hello');
    if (Date.now() > deadline) throw new Error(`the core at ${url} did not answer /hello within ${withinMs / 1000} s`);
    await sleep(500);
  }
}

/** A core that is already running (it is left running). */
export async function runningCore(url: string): Promise<Core> {
  const parsed = new URL(url);
  await waitForHello(parsed, 10_000);
  return { url: parsed, description: parsed.origin, stop: async () => {} };
}

function commitOfThisCheckout(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim() !== '';
    return `${commit}${dirty ? ' with uncommitted changes' : ''}`;
  } catch {
    return 'unknown commit';
  }
}

/**
 * `npm start -- --in-memory` of this checkout on a free loopback port, in its own process group
 * (stopping it stops everything it started); its output goes to `logFile`'s stream.
 */
export async function startCore(output: NodeJS.WritableStream): Promise<Core> {
  const port = await freePort();
  const child: ChildProcess = spawn('npm', ['start', '--', '--in-memory'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(output, { end: false });
  child.stderr?.pipe(output, { end: false });
  const running = () => child.exitCode === null && child.signalCode === null;
  /** Whether any process of the group is left (npm exits before the runtime it started). */
  const groupAlive = () => {
    try {
      return child.pid !== undefined && process.kill(-child.pid, 0);
    } catch {
      return false;
    }
  };
  const stop = async () => {
    if (!groupAlive() || child.pid === undefined) return;
    process.kill(-child.pid, 'SIGTERM');
    for (const deadline = Date.now() + 20_000; groupAlive() && Date.now() < deadline; ) await sleep(250);
    if (groupAlive()) process.kill(-child.pid, 'SIGKILL');
  };
  const url = new URL(`http://127.0.0.1:${port}`);
  try {
    await waitForHello(url, READY_WITHIN_MS, running);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, description: `\`npm start -- --in-memory\` of this repository at ${commitOfThisCheckout()}`, stop };
}
