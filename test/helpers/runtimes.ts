/**
 * The runtimes an e2e test file starts as real processes: every one started through `track` or
 * `start` is SIGKILLed after its test (never a runtime or its JVM left behind, whatever the test
 * did), and every data directory from `dataDir` is removed after the file.
 */
import { afterAll, afterEach } from 'vitest';
import {
  dynamoDbLocalProcessesMentioning,
  freshDataDir,
  LocalProcess,
  type LocalProcessOptions,
  removeDir,
  waitUntil,
} from './local-process.js';

export interface Runtimes {
  /** Starts a runtime (not waiting for it to be ready) and tracks it. */
  start(options?: LocalProcessOptions): Promise<LocalProcess>;
  /** A fresh data directory, removed after the file. */
  dataDir(): string;
}

export function useRuntimes(): Runtimes {
  const started: LocalProcess[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((r) => r.dispose()));
  });
  afterAll(() => {
    for (const dir of dirs) removeDir(dir);
  });
  return {
    async start(options = {}) {
      const runtime = await LocalProcess.start(options);
      started.push(runtime);
      return runtime;
    },
    dataDir() {
      const dir = freshDataDir();
      dirs.push(dir);
      return dir;
    },
  };
}

/**
 * SIGKILLs `runtime` (on data directory `dir`) and waits for its exit, then up to 10 s for its
 * watchdog to stop its DynamoDB Local (a later start on `dir` would also stop a leftover one).
 * Returns how the runtime exited.
 */
export async function killHard(
  runtime: LocalProcess,
  dir: string,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  runtime.kill('SIGKILL');
  const exit = await runtime.exited;
  await waitUntil(() => dynamoDbLocalProcessesMentioning(dir).length === 0, 10_000);
  return exit;
}
