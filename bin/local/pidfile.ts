import { spawnSync } from 'node:child_process';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The data directory's pid file: which runtime owns the directory and which DynamoDB Local
 * process has its database open. The DynamoDB Local watchdog already kills an orphaned JVM; this
 * file is the second line of defence, so a restart never opens the SQLite file twice.
 */
const PID_FILE_NAME = 'local-runtime.pid';

export interface PidRecord {
  readonly runtimePid: number;
  readonly dynamodbPid: number;
  readonly dynamodbPort: number;
  readonly startedAt: string;
}

function pidFilePath(dataDir: string): string {
  return join(dataDir, PID_FILE_NAME);
}

function readPidFile(dataDir: string): PidRecord | undefined {
  let text: string;
  try {
    text = readFileSync(pidFilePath(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<PidRecord>;
    if (Number.isInteger(parsed.runtimePid) && Number.isInteger(parsed.dynamodbPid)) return parsed as PidRecord;
  } catch {
    // A torn or hand-edited file: nothing trustworthy in it.
  }
  return undefined;
}

export function writePidFile(dataDir: string, record: PidRecord): void {
  const path = pidFilePath(dataDir);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

/** Removes the pid file if it still describes this runtime. */
export function removePidFile(dataDir: string, runtimePid: number): void {
  if (readPidFile(dataDir)?.runtimePid === runtimePid) rmSync(pidFilePath(dataDir), { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process's command line, or undefined when it cannot be read (gone, or no /proc and no ps). */
function commandLine(pid: number): string | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    // A zombie has an empty command line.
    return raw.replace(/\0/g, ' ').trim();
  } catch {
    const ps = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
    return ps.status === 0 ? ps.stdout.trim() : undefined;
  }
}

/** Alive and not a zombie (a killed child whose parent has not reaped it yet). */
function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return isAlive(pid);
  }
}

/** Does `pid` run DynamoDB Local on this data directory (and not some process that reused the pid)? */
function isDynamoDbLocalFor(pid: number, dataDir: string): boolean {
  if (!isRunning(pid)) return false;
  const command = commandLine(pid);
  return command?.includes('DynamoDBLocal') === true && command.includes(dataDir);
}

/** Does `pid` look like a local runtime (`… bin/local.ts …`)? Unknown command line → assume so. */
function isLocalRuntime(pid: number): boolean {
  if (pid === process.pid || !isRunning(pid)) return false;
  const command = commandLine(pid);
  return command === undefined || command === '' || /\blocal\.(ts|js|mjs)\b/.test(command);
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** Another runtime is alive and owns the data directory. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly runtimePid: number,
  ) {
    super(
      `Another local runtime (pid ${runtimePid}) is using ${dataDir}. ` +
        'Stop it first, or choose another DATA_DIR (or use --in-memory).',
    );
  }
}

/**
 * Makes sure no earlier DynamoDB Local still has this data directory's database open: if the
 * runtime recorded in the pid file is gone but its DynamoDB Local survived, stop that process
 * (SIGTERM, then SIGKILL) and wait until it has exited. Returns the pid it stopped, if any.
 */
export async function stopOrphanedDynamoDbLocal(dataDir: string): Promise<number | undefined> {
  const record = readPidFile(dataDir);
  if (!record) return undefined;
  if (isLocalRuntime(record.runtimePid)) throw new DataDirInUseError(dataDir, record.runtimePid);
  const pid = record.dynamodbPid;
  if (!isDynamoDbLocalFor(pid, dataDir)) {
    rmSync(pidFilePath(dataDir), { force: true });
    return undefined;
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
  if (!(await waitForExit(pid, 5000))) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    if (!(await waitForExit(pid, 5000))) {
      throw new Error(`Could not stop the earlier DynamoDB Local (pid ${pid}) that still uses ${dataDir}`);
    }
  }
  rmSync(pidFilePath(dataDir), { force: true });
  return pid;
}
