/**
 * The migration command against the core's side of the staging contract (Idempotency-Key replay and
 * `?dryRun=true`): these tests need the core to honour both; a core that ignores them fails here.
 *   - a dry run that finds the app's existing users (E003) and duplicates across chunks, writing nothing;
 *   - a chunk whose answer was lost (the command killed mid-request, its state gone): sending it again
 *     with the same Idempotency-Key stages nothing twice — every user imported exactly once, 0 FAILED.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, readNdjson, runCommand, startRuntime, stopRuntime } from './migrate-helpers.js';

const API_KEY = `contract-e2e-${randomBytes(12).toString('hex')}`;
let runtime: LocalProcess | undefined;
let dir: string;
const hash = bcrypt.hashSync('contract-password', 4);

const core = coreCaller(() => runtime!, API_KEY);

const user = (i: number, email = `c${i}@example.com`) => ({
  externalUserId: `contract-${i}`,
  loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: hash, hashingAlgorithm: 'BCRYPT' }],
});

function exportFile(name: string, users: unknown[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${users.map((u) => JSON.stringify(u)).join('\n')}\n`);
  return file;
}

const env = () => ({ AUTH_CORE_URL: runtime!.url, AUTH_CORE_API_KEY: API_KEY });

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'migrate-contract-'));
});

afterAll(() => stopRuntime(runtime, dir));

describe('dry run', () => {
  it('reports conflicts with the app and duplicates across chunks; writes nothing', async () => {
    const app = `dry-${randomBytes(3).toString('hex')}`;
    expect((await core('PUT', '/recipe/multitenancy/app/v2', { appId: app })).status).toBe(200);
    const existing = await core('POST', `/appid-${app}/bulk-import/import`, user(0));
    expect(existing.status, existing.text).toBe(200);
    const before = (await core('GET', `/appid-${app}/users/count`)).json.count;
    // Chunks of 2: record 1 conflicts with the app, record 4 repeats record 2's email in a later chunk.
    const file = exportFile('dry.ndjson', [user(0), user(1), user(2), user(3, 'c1@example.com')]);
    const report = join(dir, 'dry-report.ndjson');
    const result = await runCommand(
      [
        'migrate',
        file,
        '--from',
        'supertokens',
        '--app',
        app,
        '--dry-run',
        '--batch-size',
        '2',
        '--report',
        report,
        '--json',
      ],
      env(),
    );
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ dryRun: true, coreChecked: true, wouldImport: 2, staged: 0 });
    // Chunks are checked two at a time: their lines come in the order the answers arrive.
    const lines = readNdjson(readFileSync(report, 'utf8')).sort((a, b) => a.position - b.position);
    expect(lines.map((l) => [l.position, l.stage])).toEqual([
      [1, 'check'],
      [4, 'check'],
    ]);
    expect(lines[0].messages.join(' ')).toMatch(/^E0(03|27|31): /);
    expect(lines[1].messages.join(' ')).toMatch(
      /duplicate: the same email c1@example.com \(emailpassword\) in tenant public as record 2/,
    );
    expect((await core('GET', `/appid-${app}/bulk-import/users/count`)).json.count).toBe(0);
    expect((await core('GET', `/appid-${app}/users/count`)).json.count).toBe(before);
  });
});

describe('Idempotency-Key', () => {
  it('a chunk sent again after its answer was lost stages nothing twice: every user once, 0 FAILED', async () => {
    const app = `idem-${randomBytes(3).toString('hex')}`;
    expect((await core('PUT', '/recipe/multitenancy/app/v2', { appId: app })).status).toBe(200);
    const file = exportFile(
      'idem.ndjson',
      Array.from({ length: 30 }, (_, i) => user(i + 100)),
    );
    const state = join(dir, 'idem-state.ndjson');
    const args = [
      'migrate',
      file,
      '--from',
      'supertokens',
      '--app',
      app,
      '--batch-size',
      '10',
      '--state',
      state,
      '--report',
      join(dir, 'idem-report.ndjson'),
    ];
    const first = await runCommand([...args, '--no-wait'], env());
    expect(first.code, first.stderr).toBe(0);
    // As if every answer had been lost: the state is gone, the same chunks go out again with the same keys.
    unlinkSync(state);
    const again = await runCommand([...args, '--json'], env());
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ staged: 30, imported: 30, failed: 0 });
    expect((await core('GET', `/appid-${app}/users/count`)).json.count).toBe(30);
    expect((await core('GET', `/appid-${app}/bulk-import/users/count?status=FAILED`)).json.count).toBe(0);
  });
});
