/**
 * Measurement 9, the migration command (`auth-core migrate`):
 * - conversion: an Auth0 export (gzipped NDJSON) and its password-hash export streamed through the
 *   command's reader, hash index and converter into gzipped chunk bodies, in a child process, with its
 *   RSS at the end of every tenth of the records (flat = memory does not grow with the export);
 * - end to end: `migrate --from auth0` of n users against the runtime until the import is done,
 *   against the same users (the converted payload) posted directly to the API in chunks of the same
 *   size, 2 in parallel as the command sends them, until count 0; ratio = command ÷ direct users/s.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createGzip } from 'node:zlib';
import bcrypt from 'bcryptjs';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { setupSource } from '../../bin/auth-core/src/sources/index.js';
import buildCommand, { COMMAND_ENTRY } from '../../test/helpers/command.js';
import { callOk, createApp, type Runtime, waitUntilImported } from '../lib/runtime.js';
import { shortId } from '../lib/users.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const HASH = bcrypt.hashSync('bench-migrate-password', 4);

async function writeLines(path: string, count: number, line: (i: number) => string, gzip: boolean): Promise<void> {
  const file = createWriteStream(path);
  const out = gzip ? createGzip() : file;
  if (gzip) (out as ReturnType<typeof createGzip>).pipe(file);
  for (let i = 0; i < count; i++) {
    if (!out.write(`${line(i)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(file, 'close');
}

/** An Auth0 export of `count` database users (ids `auth0|<prefix><i>`) and its hash export. */
async function auth0Fixture(dir: string, prefix: string, count: number): Promise<{ users: string; hashes: string }> {
  const users = join(dir, `${prefix}-users.json.gz`);
  const hashes = join(dir, `${prefix}-hashes.ndjson`);
  await writeLines(
    users,
    count,
    (i) =>
      JSON.stringify({
        user_id: `auth0|${prefix}${i}`,
        email: `${prefix}.${i}@example.com`,
        email_verified: i % 2 === 0,
        created_at: '2021-03-04T05:06:07.890Z',
        identities: [
          {
            connection: 'Username-Password-Authentication',
            provider: 'auth0',
            user_id: `${prefix}${i}`,
            isSocial: false,
          },
        ],
        user_metadata: { plan: i % 3 === 0 ? 'gold' : 'free' },
      }),
    true,
  );
  await writeLines(
    hashes,
    count,
    (i) =>
      JSON.stringify({
        _id: { $oid: `${prefix}${i}` },
        email: `${prefix}.${i}@example.com`,
        passwordHash: HASH,
        email_verified: true,
        connection: 'Username-Password-Authentication',
      }),
    false,
  );
  return { users, hashes };
}

export async function conversionRun(records: number, batch: number): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-convert-'));
  try {
    const { users, hashes } = await auth0Fixture(dir, `c${shortId(4)}`, records);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bench/lib/convert-run.ts', users, hashes, String(records), String(batch)],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const [code] = (await once(child, 'exit')) as [number];
    if (code !== 0) throw new Error(`convert-run exited ${code}`);
    const r = JSON.parse(out) as { converted: number; ms: number; rssPerTenthMb: number[] };
    if (r.converted !== records) throw new Error(`converted ${r.converted} of ${records}`);
    const tenths = r.rssPerTenthMb;
    const metrics: Record<string, number> = {
      usersPerSecond: (records * 1000) / r.ms,
      peakRssMb: Math.max(...tenths),
      lastFirstRssRatio: (tenths[tenths.length - 1] as number) / (tenths[0] as number),
    };
    tenths.forEach((mb, i) => {
      metrics[`rssTenth${i + 1}Mb`] = mb;
    });
    return metrics;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `migrate` of n users vs the same users posted directly; both until NEW + PROCESSING = 0. */
export async function commandVsDirect(runtime: Runtime, n: number, batch: number): Promise<Record<string, number>> {
  // The command as users run it: the workspace's bundle, built from the sources of this checkout.
  buildCommand();
  const dir = mkdtempSync(join(tmpdir(), 'bench-migrate-'));
  try {
    // The command.
    const commandApp = `mig-${shortId()}`;
    await createApp(runtime, commandApp);
    const fixture = await auth0Fixture(dir, `m${shortId(4)}`, n);
    const commandStart = performance.now();
    const child = spawn(
      process.execPath,
      [
        COMMAND_ENTRY,
        'migrate',
        fixture.users,
        '--from',
        'auth0',
        '--hashes',
        fixture.hashes,
        '--app',
        commandApp,
        '--core',
        runtime.process.url,
        '--batch-size',
        String(batch),
        '--json',
        '--report',
        join(dir, 'report.ndjson'),
        '--state',
        join(dir, 'state.ndjson'),
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, AUTH_CORE_API_KEY: '' } },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const [code] = (await once(child, 'exit')) as [number];
    const commandMs = performance.now() - commandStart;
    const summary = JSON.parse(out) as { imported: number };
    if (code !== 0 || summary.imported !== n) throw new Error(`migrate exited ${code}: ${out}`);

    // The same users, converted the same way, posted directly.
    const directApp = `dir-${shortId()}`;
    await createApp(runtime, directApp);
    const other = await auth0Fixture(dir, `d${shortId(4)}`, n);
    const setup = await setupSource('auth0', other.users, {
      tenantId: PUBLIC_TENANT_ID,
      providerMap: new Map(),
      hashes: other.hashes,
    });
    const payload: unknown[] = [];
    for await (const record of setup.records()) {
      if ('value' in record) {
        const result = setup.convert(record.value);
        if (result.ok) payload.push(result.user);
      }
    }
    setup.close();
    const chunks: unknown[][] = [];
    for (let i = 0; i < payload.length; i += batch) chunks.push(payload.slice(i, i + batch));
    const directStart = performance.now();
    let next = 0;
    await Promise.all(
      [0, 1].map(async () => {
        while (next < chunks.length) {
          const users = chunks[next++];
          await callOk(runtime, 'POST', `/appid-${directApp}/bulk-import/users`, { users }, true);
        }
      }),
    );
    const directDone = await waitUntilImported(runtime, directApp, 100, 600_000);
    const directMs = directDone - directStart;
    const commandUsersPerSecond = (n * 1000) / commandMs;
    const directUsersPerSecond = (n * 1000) / directMs;
    return { commandUsersPerSecond, directUsersPerSecond, ratio: commandUsersPerSecond / directUsersPerSecond };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
