/**
 * The system under test: the real local runtime (`bin/local.ts`, what `npm start` runs) as a child
 * process, driven over HTTP exactly as a migration script would. Its banner tells us the DynamoDB
 * Local endpoint (shared with the bare baselines) and the import worker's poller concurrency.
 */
import { gzipSync } from 'node:zlib';
import { LocalProcess, removeDir } from '../../test/helpers/local-process.js';

export interface Runtime {
  readonly process: LocalProcess;
  readonly dynamodbEndpoint: string;
  readonly dynamodbPid: number;
  readonly tableName: string;
  /** Import batches the local pollers handle at once (from the banner: `worker ×N`). */
  readonly workerConcurrency: number;
  readonly inMemory: boolean;
  stop(): Promise<void>;
}

export async function startRuntime(options: {
  inMemory: boolean;
  /** Extra environment of the runtime (e.g. `BCRYPT_LOG_ROUNDS`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Extra options of `npm start` (e.g. `--write-capacity=400`). */
  args?: readonly string[];
}): Promise<Runtime> {
  const child = await LocalProcess.start({
    args: [...(options.inMemory ? ['--in-memory'] : []), ...(options.args ?? [])],
    env: { API_KEYS: undefined, LOG_LEVEL: 'warn', ...options.env },
  });
  try {
    await child.waitUntilReady(120_000);
  } catch (error) {
    await child.dispose();
    removeDir(child.dataDir);
    throw error;
  }
  const ddb = child.stdout.match(/DynamoDB Local pid (\d+) at (\S+), table (\S+)/);
  const worker = child.stdout.match(/worker ×(\d+)/);
  if (!ddb || !worker) throw new Error(`unexpected banner:\n${child.describe()}`);
  return {
    process: child,
    dynamodbPid: Number(ddb[1]),
    dynamodbEndpoint: ddb[2] as string,
    tableName: ddb[3] as string,
    workerConcurrency: Number(worker[1]),
    inMemory: options.inMemory,
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await child.exited;
      clearTimeout(timer);
      removeDir(child.dataDir);
    },
  };
}

export async function call(
  runtime: Runtime,
  method: string,
  path: string,
  body?: unknown,
  gzip = false,
  extraHeaders: Record<string, string> = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extraHeaders };
  let payload: string | Buffer | undefined;
  if (body !== undefined) {
    payload = JSON.stringify(body);
    if (gzip) {
      payload = gzipSync(payload);
      headers['content-encoding'] = 'gzip';
    }
  }
  const response = await runtime.process.fetch(path, { method, headers, body: payload });
  const text = await response.text();
  return { status: response.status, text, retryAfter: Number(response.headers.get('retry-after') ?? 1) };
}

export async function callOk(runtime: Runtime, method: string, path: string, body?: unknown, gzip = false) {
  const r = await call(runtime, method, path, body, gzip);
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status}: ${r.text.slice(0, 500)}`);
  const json = JSON.parse(r.text) as Record<string, unknown>;
  if (json.status !== undefined && json.status !== 'OK') throw new Error(`${method} ${path} → ${r.text.slice(0, 500)}`);
  return json;
}

/** Creates an app; `coreConfig` e.g. names its own table (which the local runtime then creates). */
export async function createApp(
  runtime: Runtime,
  appId: string,
  coreConfig: Record<string, unknown> = {},
): Promise<void> {
  await callOk(runtime, 'PUT', '/recipe/multitenancy/app/v2', { appId, coreConfig });
}

/** The coreConfig of an app on a table of its own (a fresh table name), or of one on the base table. */
export const tableConfig = (ownTable: boolean): Record<string, unknown> =>
  ownTable ? { dynamodb_table_name: `bench-${Math.random().toString(36).slice(2, 10)}` } : {};

export async function stagedCount(runtime: Runtime, appId: string, status: 'NEW' | 'PROCESSING' | 'FAILED') {
  const json = await callOk(runtime, 'GET', `/appid-${appId}/bulk-import/users/count?status=${status}`);
  return json.count as number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `count?status=NEW` and `PROCESSING` until both are 0 (docs/bulk-import.md's definition of done).
 * Returns the time it became 0 (the poll that saw it; resolution = `intervalMs`). Throws when
 * users FAILED or nothing moved for `stallMs`.
 */
export async function waitUntilImported(runtime: Runtime, appId: string, intervalMs = 100, stallMs = 60_000) {
  let last = -1;
  let lastMove = Date.now();
  for (;;) {
    const [fresh, processing, failed] = await Promise.all([
      stagedCount(runtime, appId, 'NEW'),
      stagedCount(runtime, appId, 'PROCESSING'),
      stagedCount(runtime, appId, 'FAILED'),
    ]);
    const at = performance.now();
    if (failed > 0) throw new Error(`${failed} staged users FAILED in ${appId}`);
    if (fresh + processing === 0) return at;
    if (fresh + processing !== last) {
      last = fresh + processing;
      lastMove = Date.now();
    } else if (Date.now() - lastMove > stallMs) {
      throw new Error(`import stalled at ${last} pending users in ${appId}\n${runtime.process.describe()}`);
    }
    await sleep(intervalMs);
  }
}
