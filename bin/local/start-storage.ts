/**
 * Start-up step of the local runtime (bin/local/runtime.ts): the storage the handlers use —
 * DynamoDB Local with the base table (after making sure no earlier one still has the database
 * open), or the DynamoDB that DYNAMODB_ENDPOINT names — then the key that seals credentials at
 * rest.
 */
import { displayUrl } from '../shared/display-url.js';
import { makeDataDirPrivate, type Tightened } from './data-dir.js';
import { ensureTable, startDynamoDbLocal } from './dynamodb.js';
import { describe } from './http-server.js';
import { holdsData, type LocalKey, useLocalKey } from './key-file.js';
import type { Lifecycle } from './lifecycle.js';
import type { ExternalDynamoDb, LocalOptions } from './options.js';
import { removePidFile, stopOrphanedDynamoDbLocal, writePidFile } from './pidfile.js';

interface Output {
  readonly say: (message: string) => void;
  readonly report: (message: string) => void;
}

export interface Storage {
  /** How long DynamoDB took to be ready. */
  readonly dynamoMs: number;
  /** The data folder's entries made owner-only now. */
  readonly tightened: readonly Tightened[];
  /** The banner's DynamoDB line. */
  readonly dynamoLine: string;
  readonly localKey: LocalKey;
}

function tightenedMessage(dataDir: string, tightened: readonly Tightened[]): string {
  return (
    `Others could read or write parts of the data folder ${dataDir}; made them owner-only: ` +
    `${tightened.map((t) => `${t.name} (was ${t.was})`).join(', ')}.`
  );
}

/**
 * The DynamoDB that DYNAMODB_ENDPOINT names, made ready for the handlers (whose environment already
 * points at it): on a DynamoDB Local the base table is created when missing; on AWS it must exist
 * with this core's keys and indexes (tables there come from the stack). Returns the banner line.
 */
async function useExternalDynamoDb(external: ExternalDynamoDb, tableName: string): Promise<string> {
  const { createTableIfMissing, tableNamed, tableProblem } = await import('#functions/storage/kit/index.js');
  const table = tableNamed(tableName);
  const shown = displayUrl(external.url);
  try {
    if (!external.aws) await createTableIfMissing(table);
    const problem = await tableProblem(table);
    if (problem !== undefined) throw new Error(`the base table cannot be used: ${problem}`);
  } catch (error) {
    throw new Error(`DynamoDB at ${shown} (DYNAMODB_ENDPOINT): ${describe(error)}`);
  }
  return external.aws
    ? `${shown} (AWS, region ${process.env.AWS_REGION}; tables are checked, not created), table ${tableName}`
    : `${shown} (DynamoDB Local; tables are created as needed), table ${tableName}`;
}

/** DynamoDB Local on `port`, its table ready, stopped (and its pid file removed) at shutdown. */
async function startLocalDynamoDb(
  options: LocalOptions,
  port: number | undefined,
  run: Lifecycle,
  { say, report }: Output,
): Promise<Omit<Storage, 'localKey'> & { hadData: boolean }> {
  let hadData = false;
  let tightened: Tightened[] = [];
  if (options.dataDir) {
    tightened = makeDataDirPrivate(options.dataDir);
    if (tightened.length > 0) report(tightenedMessage(options.dataDir, tightened));
    hadData = holdsData(options.dataDir);
    const stale = await stopOrphanedDynamoDbLocal(options.dataDir);
    if (stale !== undefined) say(`Stopped a DynamoDB Local left over from an earlier run (pid ${stale}).`);
  }
  run.checkpoint();
  // DynamoDB Local is a long-lived but lightly loaded JVM here: the C1 compiler alone starts it
  // noticeably faster (~40% on a busy 2-core machine) at no visible cost for a local core. A
  // user-set JAVA_TOOL_OPTIONS wins.
  process.env.JAVA_TOOL_OPTIONS ??= '-XX:TieredStopAtLevel=1';
  const mark = performance.now();
  const dynamo = await startDynamoDbLocal({ dataDir: options.dataDir, port });
  run.holdDatabase(dynamo.process);
  const dynamoMs = performance.now() - mark;
  const dynamoPid = dynamo.process.pid ?? -1;
  const dynamoLine =
    `DynamoDB Local pid ${dynamoPid} at ${dynamo.endpoint}, table ${options.tableName} ` +
    '(this machine only, telemetry off)';
  const dataDir = options.dataDir;
  if (dataDir) {
    writePidFile(dataDir, {
      runtimePid: process.pid,
      dynamodbPid: dynamoPid,
      dynamodbPort: Number(new URL(dynamo.endpoint).port),
      startedAt: new Date().toISOString(),
    });
  }
  run.add('DynamoDB Local', async () => {
    await dynamo.stop();
    if (dataDir) removePidFile(dataDir, process.pid);
  });
  dynamo.process.once('exit', (code, signal) => {
    if (run.isStopping) return;
    report(`DynamoDB Local exited unexpectedly (${signal ?? `code ${code}`}).`);
    void run.shutdown(1, 'Stopping: the core cannot work without its database.');
  });
  run.checkpoint();

  // The table, from the shared definition (kept when the database is persisted).
  await ensureTable(dynamo.endpoint, options.tableName);
  return { dynamoMs, tightened, dynamoLine, hadData };
}

/** Starts (or checks) DynamoDB, then opens the local key (see the module comment). */
export async function startStorage(
  options: LocalOptions,
  dynamodbPort: number | undefined,
  run: Lifecycle,
  output: Output,
): Promise<Storage> {
  const external = options.dynamodbEndpoint;
  let database: Omit<Storage, 'localKey'> & { hadData: boolean };
  if (external) {
    const mark = performance.now();
    const dynamoLine = await useExternalDynamoDb(external, options.tableName);
    database = { dynamoMs: performance.now() - mark, tightened: [], dynamoLine, hadData: false };
  } else {
    database = await startLocalDynamoDb(options, dynamodbPort, run, output);
  }
  // The key that seals credentials at rest (before anything that reads the environment starts).
  const localKey = useLocalKey(process.env, options.dataDir, database.hadData);
  if (localKey.replacedLostKey) {
    output.report(
      `A new key file was created (${localKey.path}) for a data directory that already holds data: ` +
        'staged users sealed with the previous key cannot be imported and will end FAILED; ' +
        "apps' Firebase signer keys must be set again.",
    );
  }
  run.checkpoint();
  return { dynamoMs: database.dynamoMs, tightened: database.tightened, dynamoLine: database.dynamoLine, localKey };
}
