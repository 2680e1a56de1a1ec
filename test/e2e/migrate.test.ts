/**
 * `auth-core migrate` end to end against `npm start`'s runtime: an export of every source migrated by
 * the command (a child process, off a TTY), then every migrated password user signs in through
 * supertokens-node; exit statuses; a SIGKILL after the first chunk and the same command again; and no
 * credential in stdout, stderr, the report or the state file.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth0Export,
  type BuiltExport,
  clerkExport,
  firebaseCsvExport,
  firebaseJsonExport,
  supabaseExport,
  supertokensExport,
} from '../fixtures/migrate/exports.js';
import { COMMAND_ENTRY } from '../helpers/command.js';
import { type LocalProcess, waitUntil } from '../helpers/local-process.js';
import {
  type CommandResult,
  coreCaller,
  createApp as createAppWith,
  expectNoCredential as expectNoCredentialIn,
  initSdk,
  REPO_ROOT,
  readNdjson,
  runCommand,
  startRuntime,
  stopRuntime,
} from './migrate-helpers.js';

const API_KEY = `migrate-e2e-${randomBytes(12).toString('hex')}`;
const APP = `mig-${randomBytes(3).toString('hex')}`;
let runtime: LocalProcess | undefined;
let dir: string;

const core = coreCaller(() => runtime!, API_KEY);

const createApp = (appId: string, coreConfig: Record<string, unknown> = {}) => createAppWith(core, appId, coreConfig);

async function stagedCount(appId: string, status?: string): Promise<number> {
  return (await core('GET', `/appid-${appId}/bulk-import/users/count${status ? `?status=${status}` : ''}`)).json.count;
}

function migrate(
  built: { file: string; args: string[] },
  from: string,
  extra: string[] = [],
  env: Record<string, string | undefined> = {},
) {
  return runCommand(
    [
      'migrate',
      built.file,
      '--from',
      from,
      '--app',
      APP,
      '--report',
      join(dir, `${from}-report.ndjson`),
      ...built.args,
      ...extra,
    ],
    { AUTH_CORE_URL: runtime!.url, AUTH_CORE_API_KEY: API_KEY, ...env },
  );
}

/** Nothing secret in what the command printed or wrote. */
const expectNoCredential = (result: CommandResult, files: string[], secrets: readonly string[]) =>
  expectNoCredentialIn(result, files, [...secrets, API_KEY], /\$2[abxy]\$\d\d\$|\$argon2|\$f_scrypt\$/);

const stateOf = (file: string) => `${file}.${APP}.migrate-state.ndjson`;

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'migrate-e2e-'));
  await createApp(APP, { account_linking_enabled: true });
  initSdk('migrate-e2e', runtime, APP, API_KEY);
});

afterAll(() => stopRuntime(runtime, dir));

const sources: Array<[string, string, (d: string, tag: string) => Promise<BuiltExport>]> = [
  ['auth0 (gzipped NDJSON + hash export)', 'auth0', auth0Export],
  ['firebase (JSON + console hash config)', 'firebase', firebaseJsonExport],
  ['firebase (CSV + JSON hash config)', 'firebase', firebaseCsvExport],
  ['supabase (CSV + identities)', 'supabase', supabaseExport],
  ['clerk (dashboard CSV)', 'clerk', clerkExport],
  ['supertokens (the import payload as NDJSON)', 'supertokens', supertokensExport],
];

describe('one command per source', () => {
  for (const [label, from, build] of sources) {
    it(`${label}: every user imported or reported, every password user signs in`, async () => {
      const sub = mkdtempSync(join(dir, 'src-'));
      const built = await build(sub, randomBytes(3).toString('hex'));
      const result = await migrate(built, from);
      const reportFile = join(dir, `${from}-report.ndjson`);
      expect(result.code, result.stderr).toBe(built.refusedIds.length > 0 ? 1 : 0);
      // Off a TTY: plain lines, no bar (no escape codes), a summary on stdout.
      expect(result.stderr).not.toContain('\u001b[');
      expect(result.stderr).toMatch(/^staging…$/m);
      expect(result.stdout).toMatch(new RegExp(`Migrated \\d+ ${from} records into app ${APP} \\(tenant public\\)`));
      const report = readNdjson(readFileSync(reportFile, 'utf8'));
      expect(report.map((l) => [l.sourceId, l.stage])).toEqual(built.refusedIds.map((id) => [id, 'convert']));
      for (const line of report) expect(line.position).toBeGreaterThan(0);
      for (const id of built.importedIds) expect(await supertokens.getUser(id), `user ${id}`).toBeDefined();
      for (const user of built.passwordUsers) {
        const signIn = await EmailPassword.signIn('public', user.email, user.password);
        expect(signIn.status, `${user.email}`).toBe('OK');
        if (signIn.status === 'OK') expect(signIn.user.id).toBe(user.id);
        expect((await EmailPassword.signIn('public', user.email, `${user.password}-wrong`)).status).toBe(
          'WRONG_CREDENTIALS_ERROR',
        );
      }
      expectNoCredential(result, [reportFile, stateOf(built.file)], built.secrets);
      // The same command again stages nothing and reports the same.
      const again = await migrate(built, from, ['--json']);
      expect(again.code).toBe(result.code);
      const summary = JSON.parse(again.stdout);
      expect(summary).toMatchObject({ resumedChunks: 1, failed: 0, reportLines: built.refusedIds.length });
      expect(await stagedCount(APP, 'FAILED')).toBe(0);
      expectNoCredential(again, [reportFile, stateOf(built.file)], built.secrets);
    });
  }
});

describe('import failures, status and failures --remove', () => {
  it('a user the import refuses is reported (stage import); failures lists and removes it; status counts', async () => {
    const appId = `fail-${randomBytes(3).toString('hex')}`;
    await createApp(appId);
    const sub = mkdtempSync(join(dir, 'fail-'));
    const built = await supertokensExport(sub, 'fail', 3);
    // The second user's email is already taken in the app: its staged row ends FAILED (E003).
    const taken = built.passwordUsers[1]!;
    const existing = await core('POST', `/appid-${appId}/bulk-import/import`, {
      loginMethods: [{ recipeId: 'emailpassword', email: taken.email, plainTextPassword: 'someone-else-1' }],
    });
    expect(existing.status, existing.text).toBe(200);
    const report = join(sub, 'report.ndjson');
    const env = { AUTH_CORE_URL: runtime!.url, AUTH_CORE_API_KEY: API_KEY };
    const result = await runCommand(
      ['migrate', built.file, '--from', 'supertokens', '--app', appId, '--report', report],
      env,
    );
    expect(result.code, result.stderr).toBe(1);
    expect(readNdjson(readFileSync(report, 'utf8'))).toEqual([
      {
        position: 2,
        sourceId: taken.id,
        externalUserId: taken.id,
        stage: 'import',
        kind: 'not-imported',
        messages: [`E003: A user with email ${taken.email} already exists in emailpassword loginMethod.`],
      },
    ]);
    expect(result.stdout).toMatch(/2 imported, 1 failed at import/);

    const status = await runCommand(['status', '--app', appId, '--json'], env);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ appId, NEW: 0, PROCESSING: 0, FAILED: 1 });

    const out = join(sub, 'failed.ndjson');
    const failures = await runCommand(['failures', '--app', appId, '--out', out, '--remove'], env);
    expect(failures.code, failures.stderr).toBe(0);
    expect(failures.stderr).toMatch(/1 FAILED rows written to .*\n1 removed/);
    const rows = readNdjson(readFileSync(out, 'utf8'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ externalUserId: taken.id, status: 'FAILED' });
    expectNoCredential(failures, [out], built.secrets);
    expect(await stagedCount(appId, 'FAILED')).toBe(0);
  });
});

describe('credentials in the URL, phone numbers and file modes, against the core', () => {
  it("user info of AUTH_CORE_URL never shown; the core's refusals quote numbers masked; report and state 0600", async () => {
    const appId = `ph-${randomBytes(3).toString('hex')}`;
    await createApp(appId);
    const sub = mkdtempSync(join(dir, 'phone-'));
    const existing = await core('POST', `/appid-${appId}/bulk-import/import`, {
      loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155550123' }],
    });
    expect(existing.status, existing.text).toBe(200);
    const file = join(sub, 'users.ndjson');
    const users = [
      { externalUserId: 'ph-1', loginMethods: [{ recipeId: 'passwordless', phoneNumber: ' +1 415 555 0123' }] },
      { externalUserId: 'ph-2', loginMethods: [{ recipeId: 'passwordless', phoneNumber: `+1${'5'.repeat(300)}` }] },
      { externalUserId: 'ph-3', loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+442079460958' }] },
    ];
    writeFileSync(file, `${users.map((u) => JSON.stringify(u)).join('\n')}\n`);
    const report = join(sub, 'report.ndjson');
    const state = join(sub, 'state.ndjson');
    writeFileSync(report, 'left over\n');
    chmodSync(report, 0o644);
    const url = new URL(runtime!.url);
    url.username = 'gateway-user';
    url.password = 'gateway-pass-4d1f';
    const result = await runCommand(
      ['migrate', file, '--from', 'supertokens', '--app', appId, '--report', report, '--state', state, '--json'],
      { AUTH_CORE_URL: url.toString(), AUTH_CORE_API_KEY: API_KEY },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ imported: 1, failed: 1, refused: { check: 1 } });
    expect(readNdjson(readFileSync(report, 'utf8')).sort((a, b) => a.position - b.position)).toEqual([
      {
        position: 1,
        sourceId: 'ph-1',
        externalUserId: 'ph-1',
        stage: 'import',
        kind: 'not-imported',
        messages: ['E007: A user with phoneNumber +*********23 already exists in passwordless loginMethod.'],
      },
      {
        position: 2,
        sourceId: 'ph-2',
        externalUserId: 'ph-2',
        stage: 'check',
        kind: 'not-imported',
        messages: [`phoneNumber +${'*'.repeat(299)}55 is too long. Max length is 256.`],
      },
    ]);
    expect(statSync(report).mode & 0o777).toBe(0o600);
    expect(statSync(state).mode & 0o777).toBe(0o600);
    expectNoCredential(result, [report, state], ['gateway-user', 'gateway-pass-4d1f', '4155550123', '5'.repeat(20)]);

    // The first request (reading the app) is tried 3 times only.
    const unreachable = await runCommand(['migrate', file, '--from', 'supertokens', '--app', appId], {
      AUTH_CORE_URL: 'http://gateway-user:gateway-pass-4d1f@127.0.0.1:9/?token=tok-77ab',
    });
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain('the core at http://127.0.0.1:9 is unreachable');
    expectNoCredential(unreachable, [], ['gateway-user', 'gateway-pass-4d1f', 'tok-77ab']);
  });
});

describe('exit statuses', () => {
  it('2: bad usage, unreadable or unrecognised input, a source setting missing or conflicting', async () => {
    const sub = mkdtempSync(join(dir, 'usage-'));
    const fb = await firebaseJsonExport(sub, 'usage');
    const cases: Array<[string[], RegExp]> = [
      [['migrate', fb.file, '--from', 'okta', '--app', APP], /argument 'okta' is invalid/],
      [['migrate', join(sub, 'missing.json'), '--from', 'auth0', '--app', APP], /cannot read the export file/],
      [['migrate', fb.file, '--from', 'firebase', '--app', APP], /--from firebase needs --hash-config/],
      [['migrate', fb.file, '--from', 'clerk', '--app', APP], /is not a clerk export/],
      [
        ['migrate', fb.file, '--from', 'supertokens', '--app', APP, '--batch-size', '20000'],
        /--batch-size must be auto or an integer from 1 to 10000/,
      ],
      [
        ['migrate', fb.file, '--from', 'firebase', '--app', APP, '--hash-config', fb.file],
        /--hash-config .*no valid base64_signer_key/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runCommand(
        [...args, '--report', join(sub, 'report.ndjson'), '--state', join(sub, 'state.ndjson')],
        {
          AUTH_CORE_URL: runtime!.url,
          AUTH_CORE_API_KEY: API_KEY,
        },
      );
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    // A different signer key on the app: stop before staging anything.
    const other = `other-${randomBytes(3).toString('hex')}`;
    await createApp(other, { firebase_password_hashing_signer_key: 'b3RoZXIta2V5' });
    const result = await runCommand(
      ['migrate', fb.file, '--from', 'firebase', '--app', other, ...fb.args, '--report', join(sub, 'r2.ndjson')],
      {
        AUTH_CORE_URL: runtime!.url,
        AUTH_CORE_API_KEY: API_KEY,
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /has a different firebase_password_hashing_signer_key than the hash config: nothing was staged/,
    );
    expect(await stagedCount(other)).toBe(0);
    expectNoCredential(result, [], [...fb.secrets, 'b3RoZXIta2V5']);
  });

  it('3: the key refused, the app missing, the core unreachable', async () => {
    const sub = mkdtempSync(join(dir, 'core-'));
    const st = await supertokensExport(sub, 'core');
    const wrongKey = `wrong-${randomBytes(12).toString('hex')}`;
    const cases: Array<[Record<string, string>, string[], RegExp]> = [
      [{ AUTH_CORE_API_KEY: wrongKey }, ['--app', APP], /refused the API key/],
      [{}, ['--app', 'no-such-app'], /the app no-such-app does not exist/],
      [{ AUTH_CORE_URL: 'http://127.0.0.1:9' }, ['--app', APP], /is unreachable/],
    ];
    for (const [env, args, message] of cases) {
      const result = await runCommand(
        ['migrate', st.file, '--from', 'supertokens', ...args, '--report', join(sub, 'r.ndjson')],
        {
          AUTH_CORE_URL: runtime!.url,
          AUTH_CORE_API_KEY: API_KEY,
          ...env,
        },
      );
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(message);
      expect(result.stderr + result.stdout).not.toContain(wrongKey);
    }
  });

  it('--help through npx from the repository', async () => {
    const result = await runCommand(['auth-core', '--help'], {}, { command: 'npx', argsBefore: [] });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Usage: auth-core/);
    expect(result.stdout).toMatch(/migrate \[options\] <export-file>/);
  });
});

describe('dry run on the core as it is', () => {
  it('stages nothing; a core without dry-run support is named (exit 3), a core with it checks (exit 0/1)', async () => {
    const sub = mkdtempSync(join(dir, 'dry-'));
    const built = await supertokensExport(sub, 'dry');
    const before = await stagedCount(APP);
    const result = await migrate(built, 'supertokens', ['--dry-run', '--json']);
    const summary = JSON.parse(result.stdout);
    expect(await stagedCount(APP)).toBe(before);
    for (const id of built.importedIds) expect(await supertokens.getUser(id)).toBeUndefined();
    if (summary.coreChecked === false) {
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/does not support dry runs/);
    } else {
      expect(result.code).toBe(0);
      expect(summary.wouldImport).toBe(built.importedIds.length);
    }
  });
});

describe('kill -9 and the same command again', () => {
  it('after the first chunk was staged: every user imported exactly once, 0 FAILED', { timeout: 240_000 }, async () => {
    const appId = `kill-${randomBytes(3).toString('hex')}`;
    await createApp(appId);
    const sub = mkdtempSync(join(dir, 'kill-'));
    const hash = bcrypt.hashSync('kill-test-password', 4);
    const count = 600;
    const file = join(sub, 'users.ndjson');
    writeFileSync(
      file,
      `${Array.from({ length: count }, (_, i) => JSON.stringify({ externalUserId: `kill-${i}`, loginMethods: [{ recipeId: 'emailpassword', email: `kill-${i}@example.com`, passwordHash: hash, hashingAlgorithm: 'BCRYPT' }] })).join('\n')}\n`,
    );
    const state = join(sub, 'state.ndjson');
    const args = [
      COMMAND_ENTRY,
      'migrate',
      file,
      '--from',
      'supertokens',
      '--app',
      appId,
      '--batch-size',
      '20',
      '--concurrency',
      '1',
      '--state',
      state,
      '--report',
      join(sub, 'r.ndjson'),
    ];
    const env = { ...process.env, AUTH_CORE_URL: runtime!.url, AUTH_CORE_API_KEY: API_KEY };
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    const chunkLines = () =>
      existsSync(state)
        ? readFileSync(state, 'utf8')
            .split('\n')
            .filter((l) => l.includes('"type":"chunk"')).length
        : 0;
    expect(await waitUntil(() => chunkLines() >= 1, 60_000, 5)).toBe(true);
    child.kill('SIGKILL');
    await exited;
    const stagedBefore = chunkLines();
    expect(stagedBefore).toBeLessThan(count / 20);

    const again = await runCommand(args.slice(1), { AUTH_CORE_URL: runtime!.url, AUTH_CORE_API_KEY: API_KEY });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming: \d+ chunks already staged/);
    expect((await core('GET', `/appid-${appId}/users/count`)).json.count).toBe(count);
    expect(await stagedCount(appId, 'FAILED')).toBe(0);
    expect(await stagedCount(appId)).toBe(0);
    expectNoCredential(again, [state], [hash]);
  });
});
