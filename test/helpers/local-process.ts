import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../bin/local/dynamodb.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

export interface LocalProcessOptions {
  /** Extra command-line arguments (e.g. `--in-memory`). */
  readonly args?: readonly string[];
  /** Environment overrides; PORT and DATA_DIR are filled in unless given. `undefined` removes a variable. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly port?: number;
  readonly dataDir?: string;
}

/**
 * The local runtime (`bin/local.ts`) as a real child process: `node --import tsx bin/local.ts`,
 * run from the repository root, with its own port and data directory.
 */
export class LocalProcess {
  readonly child: ChildProcess;
  readonly url: string;
  private out = '';
  private err = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly port: number,
    readonly dataDir: string,
    options: LocalProcessOptions,
  ) {
    const env: Record<string, string> = {};
    // The bundled DynamoDB Local unless the test names another (this process may point its own
    // clients at some DynamoDB: the child must not inherit that).
    const own = {
      PORT: String(port),
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: undefined,
      DYNAMODB_CREATE_TABLES: undefined,
    };
    for (const [k, v] of Object.entries({ ...process.env, ...own, ...options.env })) {
      if (v !== undefined) env[k] = v;
    }
    this.child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts', ...(options.args ?? [])], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.out += chunk.toString();
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.err += chunk.toString();
    });
    this.url = `http://127.0.0.1:${port}`;
    this.exited = new Promise((r) => this.child.once('exit', (code, signal) => r({ code, signal })));
  }

  static async start(options: LocalProcessOptions = {}): Promise<LocalProcess> {
    const port = options.port ?? (await freePort());
    return new LocalProcess(port, options.dataDir ?? freshDataDir(), options);
  }

  get stdout(): string {
    return this.out;
  }

  get stderr(): string {
    return this.err;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once stdout matches (or rejects when the process exits or the time is up). */
  async waitForOutput(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.out.match(pattern);
      if (match) return match;
      if (!this.running) throw new Error(`runtime exited before printing ${pattern}:\n${this.describe()}`);
      if (Date.now() > deadline) throw new Error(`runtime did not print ${pattern} in time:\n${this.describe()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Waits for the start-up banner; returns DynamoDB Local's pid from it. */
  async waitUntilReady(timeoutMs = 90_000): Promise<{ dynamodbPid: number }> {
    const match = await this.waitForOutput(/DynamoDB Local pid (\d+)/, timeoutMs);
    return { dynamodbPid: Number(match[1]) };
  }

  fetch(path: string, init?: RequestInit): Promise<Response> {
    return fetch(`${this.url}${path}`, init);
  }

  kill(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGKILLs the runtime if it is still running and waits for its exit. */
  async dispose(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** The pid file the runtime keeps in its data directory, if any. */
  pidFile(): { runtimePid: number; dynamodbPid: number } | undefined {
    try {
      return JSON.parse(readFileSync(join(this.dataDir, 'local-runtime.pid'), 'utf8'));
    } catch {
      return undefined;
    }
  }

  describe(): string {
    return `--- stdout ---\n${this.out.slice(-4000)}\n--- stderr ---\n${this.err.slice(-4000)}`;
  }
}

export function freshDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'auth-core-local-'));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** True while `pid` is a live (non-zombie) process. */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** Pids of live DynamoDB Local processes whose command line mentions `text` (e.g. a data directory). */
export function dynamoDbLocalProcessesMentioning(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    const pid = Number(entry);
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (command.includes('DynamoDBLocal') && command.includes(text) && processRunning(pid)) found.push(pid);
    } catch {
      // Exited meanwhile.
    }
  }
  return found;
}

/** The watchdog shell (`sh -c 'while kill -0 <runtime pid> …'`) guarding a runtime's DynamoDB Local. */
export function watchdogOf(runtimePid: number): number | undefined {
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (command.includes(`while kill -0 ${runtimePid} `)) return Number(entry);
    } catch {
      // Exited meanwhile.
    }
  }
  return undefined;
}

export async function waitUntil(condition: () => boolean, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (condition()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
