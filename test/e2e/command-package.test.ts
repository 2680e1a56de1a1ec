/**
 * The command as a package of its own: `npm pack` of the bin/auth-core workspace, the tarball
 * installed with npm into an empty folder (its dependencies from the registry, as a user's install
 * gets them; no checkout, no tsx), then `auth-core --help` and a dry run against the local runtime.
 */
import { type ExecFileSyncOptions, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/command.js';
import type { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, createApp, readNdjson, runCommand, startRuntime, stopRuntime } from './migrate-helpers.js';

const API_KEY = `package-e2e-${randomBytes(12).toString('hex')}`;
const APP = `pkg-${randomBytes(3).toString('hex')}`;
let runtime: LocalProcess | undefined;
let dir: string | undefined;
let installed: string;
const core = coreCaller(() => runtime!, API_KEY);

/** npm as a user runs it: none of the npm_* variables of the `npm test` that may be running this. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.toLowerCase().startsWith('npm_')) env[k] = v;
  return env;
}

function npm(args: string[], cwd: string): string {
  const options: ExecFileSyncOptions = { cwd, env: npmEnv(), stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' };
  return execFileSync('npm', args, options) as unknown as string;
}

/** The installed `auth-core` (node_modules/.bin of the install folder), run there. */
const installedCommand = (args: string[], env: Record<string, string> = {}) =>
  runCommand(
    args,
    { ...npmEnv(), AUTH_CORE_URL: '', AUTH_CORE_API_KEY: '', ...env },
    {
      command: join(installed, 'node_modules', '.bin', 'auth-core'),
      argsBefore: [],
      cwd: installed,
    },
  );

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'package-e2e-'));
  const packed = mkdtempSync(join(dir, 'packed-'));
  npm(['pack', '--workspace', 'bin/auth-core', '--pack-destination', packed], REPO_ROOT);
  const [tarball] = readdirSync(packed).filter((f) => f.endsWith('.tgz'));
  expect(tarball).toBeDefined();
  installed = mkdtempSync(join(tmpdir(), 'auth-core-install-'));
  writeFileSync(join(installed, 'package.json'), '{"name":"trying-auth-core","private":true}\n');
  npm(['install', join(packed, tarball as string), '--no-audit', '--no-fund', '--prefer-offline'], installed);
});

afterAll(async () => {
  await stopRuntime(runtime, dir);
  if (installed) rmSync(installed, { recursive: true, force: true });
});

describe('the packed command', () => {
  it('holds only its launcher, its bundle and its package.json, and installs without the repository or tsx', () => {
    const pkg = join(installed, 'node_modules', 'auth-core');
    expect(readdirSync(pkg).sort()).toEqual(['auth-core.js', 'dist', 'package.json']);
    expect(readdirSync(join(pkg, 'dist'))).toEqual(['auth-core.js']);
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
    expect(manifest.bin).toEqual({ 'auth-core': 'auth-core.js' });
    // Exact versions, so an install resolves what was tested.
    for (const version of Object.values(manifest.dependencies as Record<string, string>)) {
      expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    }
    expect(existsSync(join(installed, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(installed, 'node_modules', 'esbuild'))).toBe(false);
    const bundle = readFileSync(join(pkg, 'dist', 'auth-core.js'), 'utf8');
    // The contract is compiled in; nothing reaches for the repository's own modules.
    expect(bundle).toContain('function normalisePhoneNumber');
    expect(bundle).not.toMatch(/#functions\/|from "\.\.?\//);
  });

  it('auth-core --help', async () => {
    const result = await installedCommand(['--help']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Usage: auth-core/);
    expect(result.stdout).toMatch(/migrate \[options\] <export-file>/);
    const migrateHelp = await installedCommand(['migrate', '--help']);
    expect(migrateHelp.code, migrateHelp.stderr).toBe(0);
    expect(migrateHelp.stdout).toMatch(/--hashes <file>\s+auth0: the password-hash export/);
  });

  it('checks an export with the local core (migrate --dry-run) and stages nothing', async () => {
    await createApp(core, APP);
    const file = join(dir as string, 'users.ndjson');
    const users = [
      {
        externalUserId: 'pk-1',
        loginMethods: [{ recipeId: 'emailpassword', email: 'pk-1@example.com', plainTextPassword: 'correct horse 1' }],
      },
      { externalUserId: 'pk-2', loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+1 (555) 0100' }] },
      { externalUserId: 'pk-3', loginMethods: [{ recipeId: 'emailpassword', email: 'pk-3@example.com' }] },
    ];
    writeFileSync(file, `${users.map((u) => JSON.stringify(u)).join('\n')}\n`);
    const report = join(dir as string, 'package-report.ndjson');
    const result = await installedCommand(
      ['migrate', file, '--from', 'supertokens', '--app', APP, '--dry-run', '--json', '--report', report],
      { AUTH_CORE_URL: runtime!.url, AUTH_CORE_API_KEY: API_KEY },
    );
    expect(result.code, result.stderr).toBe(1);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ dryRun: true, coreChecked: true, records: 3, wouldImport: 2, reportLines: 1 });
    expect(readNdjson(readFileSync(report, 'utf8'))).toEqual([
      expect.objectContaining({ position: 3, externalUserId: 'pk-3', stage: 'check', kind: 'not-imported' }),
    ]);
    const count = await core('GET', `/appid-${APP}/bulk-import/users/count`);
    expect(count.json.count).toBe(0);
    expect(`${result.stdout}${result.stderr}${readFileSync(report, 'utf8')}`).not.toContain(API_KEY);
  });
});
