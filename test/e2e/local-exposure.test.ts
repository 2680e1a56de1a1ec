/**
 * `npm start` is reachable from this machine only, and its data is its owner's only (docs/safe-defaults.md;
 * docs/security.md): every socket the runtime's processes listen on — the core, fauxqs (in the runtime's
 * own process) and DynamoDB Local (its java child) — is bound to 127.0.0.1, read from the kernel's
 * own tables (/proc/net/tcp and tcp6, matched to the processes' socket inodes); DynamoDB Local runs
 * with telemetry off; DynamoDB Local and fauxqs refuse a request naming another host (a DNS name
 * rebound to 127.0.0.1) or carrying an Origin; the data folder is 0700 and every file in it 0600 —
 * also when an earlier run, a copy or a restore left them readable by others (tightened at start,
 * and the runtime says so).
 */
import { chmodSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDataDir, LocalProcess, removeDir } from '../helpers/local-process.js';

const started: LocalProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(started.map((r) => r.dispose()));
  for (const dir of dirs) removeDir(dir);
});

async function start(dataDir: string): Promise<LocalProcess> {
  const runtime = await LocalProcess.start({ dataDir, env: { API_KEYS: undefined } });
  started.push(runtime);
  await runtime.waitForOutput(/Auth core \(local\) ready/, 120_000);
  return runtime;
}

/** `0100007F:0DEF` (IPv4) or 32 hex digits (IPv6), little-endian words, as /proc/net/tcp* print them. */
function decodeAddress(hex: string, v6: boolean): string {
  const [addr = '', portHex = ''] = hex.split(':');
  const port = Number.parseInt(portHex, 16);
  if (!v6) {
    const bytes = (addr.match(/../g) ?? []).map((b) => Number.parseInt(b, 16)).reverse();
    return `${bytes.join('.')}:${port}`;
  }
  const words = (addr.match(/.{8}/g) ?? []).map((w) => (w.match(/../g) ?? []).reverse().join(''));
  const groups = words.join('').match(/.{4}/g) ?? [];
  const text = groups.map((g) => g.replace(/^0+(?=.)/, '')).join(':');
  return `[${text}]:${port}`;
}

/** Every listening TCP socket of the machine: socket inode → `address:port`. */
function listeningSockets(): Map<string, string> {
  const sockets = new Map<string, string>();
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st … inode: st 0A is LISTEN.
      if (fields.length < 10 || fields[3] !== '0A') continue;
      sockets.set(fields[9] as string, decodeAddress(fields[1] as string, v6));
    }
  }
  return sockets;
}

/** The pids of `pid` and all its descendants (the processes `npm start` runs). */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Exited meanwhile.
    }
  }
  const tree: number[] = [];
  const visit = (p: number) => {
    tree.push(p);
    for (const child of children.get(p) ?? []) visit(child);
  };
  visit(pid);
  return tree;
}

/** What each process of the tree listens on. */
function listenersOf(pids: readonly number[]): Map<number, string[]> {
  const listening = listeningSockets();
  const result = new Map<number, string[]>();
  for (const pid of pids) {
    const addresses: string[] = [];
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        const address = inode === undefined ? undefined : listening.get(inode);
        if (address !== undefined) addresses.push(address);
      } catch {
        // Closed meanwhile.
      }
    }
    result.set(pid, [...new Set(addresses)].sort());
  }
  return result;
}

function status(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const target = new URL(url);
    const req = httpRequest({ host: target.hostname, port: target.port, method: 'POST', path: '/', headers }, (res) => {
      res.resume();
      resolveStatus(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, '0');

describe('npm start on this machine only', () => {
  it('listens on 127.0.0.1 only (core, fauxqs, DynamoDB Local), telemetry off; the data folder is private, tightened when it was not', async () => {
    const dataDir = freshDataDir();
    dirs.push(dataDir);

    // A first run makes the database, the key file and the pid file; then they are loosened, as a
    // copy, a restore or an earlier version could have left them.
    const first = await start(dataDir);
    first.kill('SIGINT');
    expect((await first.exited).code).toBe(0);
    const files = readdirSync(dataDir);
    expect(files).toEqual(expect.arrayContaining(['credentials.key', 'shared-local-instance.db']));
    chmodSync(dataDir, 0o755);
    for (const file of files) chmodSync(join(dataDir, file), 0o644);

    const runtime = await start(dataDir);
    const pid = runtime.child.pid as number;
    const dynamodbPid = runtime.pidFile()?.dynamodbPid as number;
    const sqsPort = Number(/SQS: {7}fauxqs at http:\/\/127\.0\.0\.1:(\d+)/.exec(runtime.stdout)?.[1]);
    const dynamodbPort = Number(/DynamoDB Local pid \d+ at http:\/\/127\.0\.0\.1:(\d+)/.exec(runtime.stdout)?.[1]);
    expect(sqsPort).toBeGreaterThan(0);
    expect(dynamodbPort).toBeGreaterThan(0);

    // --- Every listening socket of every process npm start runs, from the kernel's tables.
    const tree = processTree(pid);
    expect(tree).toContain(dynamodbPid);
    const listeners = listenersOf(tree);
    expect(listeners.get(pid)).toEqual([`127.0.0.1:${runtime.port}`, `127.0.0.1:${sqsPort}`].sort());
    expect(listeners.get(dynamodbPid)).toEqual([`127.0.0.1:${dynamodbPort}`]);
    const everything = [...listeners.values()].flat();
    expect(everything.filter((address) => !address.startsWith('127.0.0.1:'))).toEqual([]);

    // --- DynamoDB Local: telemetry off (the flag and its environment switch).
    const command = readFileSync(`/proc/${dynamodbPid}/cmdline`, 'utf8').split('\0');
    expect(command).toContain('-disableTelemetry');
    expect(readFileSync(`/proc/${dynamodbPid}/environ`, 'utf8').split('\0')).toContain('DDB_LOCAL_TELEMETRY=0');

    // --- DynamoDB Local and fauxqs answer this machine's own clients only.
    for (const [name, port] of [
      ['DynamoDB Local', dynamodbPort],
      ['fauxqs', sqsPort],
    ] as const) {
      const url = `http://127.0.0.1:${port}`;
      expect(await status(url, { host: `rebound.attacker.example:${port}` }), name).toBe(403);
      expect(await status(url, { origin: 'https://attacker.example' }), name).toBe(403);
      expect(await status(url, { 'content-type': 'application/x-amz-json-1.0' }), name).not.toBe(403);
    }

    // --- The data folder and everything in it: owner only, and the runtime said what it tightened.
    expect(mode(dataDir)).toBe('0700');
    const now = readdirSync(dataDir);
    expect(now).toEqual(expect.arrayContaining(['credentials.key', 'shared-local-instance.db', 'local-runtime.pid']));
    for (const file of now) expect(mode(join(dataDir, file)), file).toBe('0600');
    expect(runtime.stderr).toContain('made them owner-only: . (was 0755)');
    for (const file of files) expect(runtime.stderr).toContain(`${file} (was 0644)`);
    expect(runtime.stdout).toMatch(/Data: {6}.* \(owner only: the folder 0700, its files 0600; tightened now: /);
  });

  it('a new data folder is created private, and so is everything DynamoDB Local writes in it', async () => {
    const parent = freshDataDir();
    dirs.push(parent);
    const dataDir = join(parent, 'nested', '.data');
    const runtime = await start(dataDir);
    expect(mode(dataDir)).toBe('0700');
    for (const file of readdirSync(dataDir)) expect(mode(join(dataDir, file)), file).toBe('0600');
    expect(runtime.stderr).not.toMatch(/made them owner-only/);
    runtime.kill('SIGINT');
    expect((await runtime.exited).code).toBe(0);
  });
});
