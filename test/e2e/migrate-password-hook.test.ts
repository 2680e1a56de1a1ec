/**
 * The command's side of the password-migration hook, end to end against `npm start`'s runtime:
 * `--verify` after a Firebase import whose hash config carries another project's signer key (the
 * canary reported with that cause, exit 1) and after a right one (every account signs in); a Cognito
 * export (`aws cognito-idp list-users`) with and without `--password-hook` (the summary counts users
 * by how they will sign in; without the flag the report names it; an app without a hook stops a real
 * run before staging); and, on a core that takes `password_migration_hook_url`, a real import of
 * pending users checked with `--verify` against a legacy endpoint that says yes, no, or is down. No
 * password, hash, signer key or hook secret in stdout, stderr, the report or the state file.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltExport, FIREBASE_PROJECT, firebaseJsonExport } from '../fixtures/migrate/exports.js';
import type { LocalProcess } from '../helpers/local-process.js';
import {
  type CommandResult,
  coreCaller,
  createApp,
  expectNoCredential as expectNoCredentialIn,
  readNdjson,
  runCommand,
  startRuntime,
  stopRuntime,
} from './migrate-helpers.js';

const API_KEY = `hook-e2e-${randomBytes(12).toString('hex')}`;
const HOOK_SECRET = `hook-secret-${randomBytes(24).toString('hex')}`;
let runtime: LocalProcess | undefined;
let dir: string;
const core = coreCaller(() => runtime!, API_KEY);

const HASH_FORMS = /\$2[abxy]\$\d\d\$|\$argon2|\$f_scrypt\$/;
const expectNoCredential = (result: CommandResult, files: string[], secrets: readonly string[]) =>
  expectNoCredentialIn(result, files, [...secrets, API_KEY, HOOK_SECRET], HASH_FORMS);

const env = () => ({ AUTH_CORE_URL: runtime!.url, AUTH_CORE_API_KEY: API_KEY });
const newApp = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'migrate-hook-e2e-'));
});

afterAll(() => stopRuntime(runtime, dir));

function writeVerifyCsv(file: string, accounts: ReadonlyArray<{ email: string; password: string }>): void {
  writeFileSync(file, `email,password\n${accounts.map((a) => `${a.email},${a.password}`).join('\n')}\n`);
}

describe('--verify after a Firebase import', () => {
  async function firebaseRun(built: BuiltExport, configFile: string, appId: string, verify: string, json: boolean) {
    const sub = mkdtempSync(join(dir, 'fb-run-'));
    const report = join(sub, 'report.ndjson');
    const state = join(sub, 'state.ndjson');
    const result = await runCommand(
      [
        'migrate',
        built.file,
        '--from',
        'firebase',
        '--hash-config',
        configFile,
        '--app',
        appId,
        '--report',
        report,
        '--state',
        state,
        '--verify',
        verify,
        ...(json ? ['--json'] : []),
      ],
      env(),
    );
    return { result, report, state };
  }

  it("a hash config with another project's signer key: the canary fails, named FIREBASE_SCRYPT with that cause; exit 1", async () => {
    const appId = newApp('fbwrong');
    await createApp(core, appId, { account_linking_enabled: true });
    const sub = mkdtempSync(join(dir, 'fb-wrong-'));
    const built = await firebaseJsonExport(sub, 'wrongkey');
    // The same project parameters, another project's signer key (the mistake the check exists for).
    const wrongKey = Buffer.from(`another-project-${randomBytes(16).toString('hex')}`).toString('base64');
    const wrongConfig = join(sub, 'wrong-hash-config.json');
    writeFileSync(
      wrongConfig,
      JSON.stringify({
        base64_signer_key: wrongKey,
        base64_salt_separator: FIREBASE_PROJECT.saltSeparator,
        rounds: FIREBASE_PROJECT.rounds,
        mem_cost: FIREBASE_PROJECT.memCost,
      }),
    );
    const canary = built.passwordUsers[0]!;
    const verify = join(sub, 'canaries.csv');
    writeVerifyCsv(verify, [canary, { email: `nobody.wrongkey@example.com`, password: 'not-an-account-pw' }]);

    const { result, report, state } = await firebaseRun(built, wrongConfig, appId, verify, true);
    expect(result.code, result.stderr).toBe(1);
    const summary = JSON.parse(result.stdout);
    // The import itself went through: the core cannot tell a wrong key from hashes alone.
    expect(summary).toMatchObject({ imported: 4, failed: 0, reportLines: 1 });
    expect(summary.signIn).toEqual({ byHashFamily: { FIREBASE_SCRYPT: 2 }, pendingHook: 0, withoutPassword: 2 });
    expect(summary.verify).toMatchObject({ file: verify, checked: 2, signedIn: 0 });
    expect(summary.verify.failures).toEqual([
      {
        email: canary.email,
        hashFamily: 'FIREBASE_SCRYPT',
        answer: 'WRONG_CREDENTIALS_ERROR',
        likelyCause: expect.stringMatching(/^a wrong Firebase signer key: /),
      },
      {
        email: 'nobody.wrongkey@example.com',
        hashFamily: null,
        answer: 'WRONG_CREDENTIALS_ERROR',
        likelyCause: 'no user of the export has this email (not in the export, or the address differs)',
      },
    ]);
    expectNoCredential(result, [report, state], [...built.secrets, wrongKey, canary.password, 'not-an-account-pw']);
  });

  it('the right hash config: "2 of 2 sign in" in the text summary, passwords nowhere', async () => {
    const appId = newApp('fbright');
    await createApp(core, appId, { account_linking_enabled: true });
    const sub = mkdtempSync(join(dir, 'fb-right-'));
    const built = await firebaseJsonExport(sub, 'rightkey');
    const verify = join(sub, 'canaries.ndjson');
    writeFileSync(
      verify,
      `${built.passwordUsers.map((u) => JSON.stringify({ email: u.email, password: u.password })).join('\n')}\n`,
    );
    const { result, report, state } = await firebaseRun(built, built.args[1]!, appId, verify, false);
    // The anonymous user is reported (exit 1 for it); every canary signs in.
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`checking that 2 accounts of ${verify} sign in…`);
    expect(result.stdout).toContain(`Sign-in check (${verify}): 2 of 2 sign in.`);
    expect(result.stdout).toContain(
      'How the converted users will sign in: 2 with their password hash (FIREBASE_SCRYPT 2), 0 pending the password-migration hook, 2 without a password (social or passwordless).',
    );
    expectNoCredential(result, [report, state], [...built.secrets, ...built.passwordUsers.map((u) => u.password)]);
  });

  it('--verify with --dry-run, or a verify file without the header, stops before anything is read', async () => {
    const appId = newApp('fbusage');
    await createApp(core, appId);
    const sub = mkdtempSync(join(dir, 'fb-usage-'));
    const built = await firebaseJsonExport(sub, 'usage');
    const bad = join(sub, 'bad.csv');
    writeFileSync(bad, 'user,pass\nann@example.com,hunter2-secret\n');
    const dry = await runCommand(
      ['migrate', built.file, '--from', 'firebase', ...built.args, '--app', appId, '--dry-run', '--verify', bad],
      env(),
    );
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('--verify signs accounts in after the import: it needs a real run, not --dry-run');
    const headerless = await runCommand(
      ['migrate', built.file, '--from', 'firebase', ...built.args, '--app', appId, '--verify', bad],
      env(),
    );
    expect(headerless.code).toBe(2);
    expect(headerless.stderr).toContain(`--verify ${bad} needs a header naming the columns email and password`);
    expect(`${headerless.stdout}${headerless.stderr}`).not.toContain('hunter2-secret');
    expect((await core('GET', `/appid-${appId}/bulk-import/users/count`)).json.count).toBe(0);
  });
});

/** Three Cognito users: two with a password (one verified), one federated through Google. */
function cognitoExport(sub: string, tag: string) {
  const user = (name: string, verified: boolean) => ({
    Username: `${name}-${tag}`,
    Attributes: [
      { Name: 'sub', Value: `sub-${name}-${tag}` },
      { Name: 'email', Value: `${name}.${tag}@example.com` },
      { Name: 'email_verified', Value: String(verified) },
      { Name: 'given_name', Value: name },
    ],
    UserCreateDate: '2023-04-05T06:07:08.123000+00:00',
    UserLastModifiedDate: '2023-04-05T06:07:08.123000+00:00',
    Enabled: true,
    UserStatus: 'CONFIRMED',
  });
  const users = [
    user('ada', true),
    user('bob', false),
    user('cy', true),
    {
      Username: `Google_g-${tag}`,
      Attributes: [
        { Name: 'sub', Value: `sub-goog-${tag}` },
        { Name: 'email', Value: `goog.${tag}@example.com` },
        { Name: 'email_verified', Value: 'true' },
        {
          Name: 'identities',
          Value: JSON.stringify([
            { userId: `g-${tag}`, providerName: 'Google', providerType: 'Google', primary: true },
          ]),
        },
      ],
      UserCreateDate: 1680674828.123,
      Enabled: true,
      UserStatus: 'EXTERNAL_PROVIDER',
    },
  ];
  const file = join(sub, 'cognito-users.json');
  // As the CLI prints it: indented, Users first.
  writeFileSync(file, JSON.stringify({ Users: users }, null, 4));
  return {
    file,
    pendingIds: [`sub-ada-${tag}`, `sub-bob-${tag}`, `sub-cy-${tag}`],
    email: (name: string) => `${name}.${tag}@example.com`,
  };
}

describe('a Cognito export', () => {
  /** A fresh app (no hook) and `migrate` of a Cognito export into it with `args`. */
  async function cognitoRun(tag: string, args: readonly string[]) {
    const appId = newApp(`cog${tag}`);
    await createApp(core, appId);
    const sub = mkdtempSync(join(dir, `cog-${tag}-`));
    const built = cognitoExport(sub, tag);
    const report = join(sub, 'report.ndjson');
    const result = await runCommand(
      ['migrate', built.file, '--from', 'cognito', '--app', appId, '--report', report, ...args],
      env(),
    );
    return { appId, built, report, result };
  }

  it('dry run with --password-hook: users counted by how they will sign in; the app without a hook is named', async () => {
    const { appId, built, report, result } = await cognitoRun('dry', ['--password-hook', '--dry-run', '--json']);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ source: 'cognito', records: 4, converted: 4, refused: { convert: 0 } });
    expect(summary.signIn).toEqual({ byHashFamily: {}, pendingHook: 3, withoutPassword: 1 });
    expect(result.stderr).toContain(
      `app ${appId} has no password_migration_hook_url, and the core takes users pending the password-migration hook (--password-hook) only into an app with one`,
    );
    // The core checks every pending user against the app (which has no hook): each is refused at check.
    const lines = readNdjson(readFileSync(report, 'utf8'));
    expect(lines.map((l) => [l.sourceId, l.stage]).sort()).toEqual(built.pendingIds.map((id) => [id, 'check']));
    expect(result.code).toBe(1);
  });

  it('without --password-hook: password users reported naming the flag, the federated user importable', async () => {
    const { report, result } = await cognitoRun('noflag', ['--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(1);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ wouldImport: 1, refused: { convert: 3, check: 0 } });
    expect(summary.signIn).toEqual({ byHashFamily: {}, pendingHook: 0, withoutPassword: 1 });
    for (const line of readNdjson(readFileSync(report, 'utf8'))) {
      expect(line).toMatchObject({ stage: 'convert', kind: 'not-imported' });
      expect(line.messages).toEqual([
        'Cognito exports no password hash: give --password-hook to import it pending the password-migration hook (the old system then checks its password at first sign-in)',
      ]);
    }
  });

  it('a real run with --password-hook into an app without a hook stops before staging (exit 2)', async () => {
    const { appId, result } = await cognitoRun('nohook', ['--password-hook']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/has no password_migration_hook_url.*Nothing was staged\./);
    expect((await core('GET', `/appid-${appId}/bulk-import/users/count`)).json.count).toBe(0);
  });
});

/** A legacy endpoint that checks the core's signature and knows one password per email. */
function legacyEndpoint(
  passwords: ReadonlyMap<string, string>,
): Promise<{ server: Server; url: string; calls: string[] }> {
  const calls: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = String(request.headers['x-auth-core-signature'] ?? '');
      const t = /t=(\d+)/.exec(header)?.[1];
      const v1 = /v1=([0-9a-f]+)/.exec(header)?.[1];
      const expected = createHmac('sha256', HOOK_SECRET).update(`${t}.${body}`).digest('hex');
      if (t === undefined || v1 !== expected) {
        response.writeHead(401).end();
        return;
      }
      const { email, password } = JSON.parse(body) as { email: string; password: string };
      calls.push(email);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ status: passwords.get(email) === password ? 'PASSWORD_MATCH' : 'PASSWORD_MISMATCH' }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/legacy-check`, calls }),
    ),
  );
}

describe('pending users through the hook', () => {
  it('import with --password-hook, then --verify: match signs in, mismatch and a stopped hook are named', async () => {
    const sub = mkdtempSync(join(dir, 'cog-hook-'));
    const built = cognitoExport(sub, 'hook');
    const passwords = new Map([
      [built.email('ada'), 'ada-legacy-password-1'],
      [built.email('bob'), 'bob-legacy-password-2'],
      [built.email('cy'), 'cy-legacy-password-3'],
    ]);
    const legacy = await legacyEndpoint(passwords);
    try {
      const appId = newApp('coghook');
      const created = await core('PUT', '/recipe/multitenancy/app/v2', {
        appId,
        coreConfig: { password_migration_hook_url: legacy.url, password_migration_hook_secret: HOOK_SECRET },
      });
      expect(created.status, created.text).toBe(200);
      const verify = join(sub, 'canaries.csv');
      writeVerifyCsv(verify, [
        { email: built.email('ada'), password: 'ada-legacy-password-1' },
        { email: built.email('bob'), password: 'not-bobs-password-9' },
      ]);
      const report = join(sub, 'report.ndjson');
      const state = join(sub, 'state.ndjson');
      const args = [
        'migrate',
        built.file,
        '--from',
        'cognito',
        '--app',
        appId,
        '--password-hook',
        '--report',
        report,
        '--state',
        state,
      ];
      const first = await runCommand([...args, '--verify', verify, '--json'], env());
      expect(first.code, first.stderr).toBe(1);
      const summary = JSON.parse(first.stdout);
      expect(summary).toMatchObject({ imported: 4, failed: 0, reportLines: 0 });
      expect(summary.signIn).toEqual({ byHashFamily: {}, pendingHook: 3, withoutPassword: 1 });
      expect(summary.verify).toMatchObject({ checked: 2, signedIn: 1 });
      expect(summary.verify.failures).toEqual([
        {
          email: built.email('bob'),
          hashFamily: 'pending',
          answer: 'WRONG_CREDENTIALS_ERROR',
          likelyCause: expect.stringMatching(/^pending, the hook said no \(PASSWORD_MISMATCH\)/),
        },
      ]);
      expect(legacy.calls).toEqual([built.email('ada'), built.email('bob')]);
      expectNoCredential(first, [report, state], [...passwords.values(), 'not-bobs-password-9']);

      // The legacy endpoint stopped: ada now holds a hash in the core and signs in; cy, still pending, gets 503.
      await new Promise((resolve) => legacy.server.close(resolve));
      writeVerifyCsv(verify, [
        { email: built.email('ada'), password: 'ada-legacy-password-1' },
        { email: built.email('cy'), password: 'cy-legacy-password-3' },
      ]);
      const again = await runCommand([...args, '--verify', verify], env());
      expect(again.code, again.stderr).toBe(1);
      expect(again.stdout).toContain(`Sign-in check (${verify}): 1 of 2 sign in.`);
      expect(again.stdout).toMatch(
        new RegExp(
          `  ${built.email('cy').replace(/\./g, '\\.')} \\(pending the hook\\): 503.*; likely cause: pending, the hook is unavailable \\(the core answered 503\\)`,
        ),
      );
      expectNoCredential(again, [report, state], [...passwords.values()]);
    } finally {
      legacy.server.close();
    }
  });
});
