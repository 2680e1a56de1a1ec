/**
 * `auth-core migrate` from the systems with legacy password hashes — Keycloak, Django, WordPress, and
 * Clerk's other hashers — against `npm start`'s runtime: every user imported or reported, every
 * migrated password user signs in through supertokens-node (the first sign-in upgrades the legacy
 * hash, the second verifies the upgraded one), Keycloak's realm roles with --with-roles after a dry
 * run named the missing ones, and no credential in the command's output, report or state.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltExport } from '../fixtures/migrate/exports.js';
import {
  clerkLegacyExport,
  djangoExport,
  keycloakExport,
  wordpressExport,
} from '../fixtures/migrate/legacy-exports.js';
import type { LocalProcess } from '../helpers/local-process.js';
import {
  type CommandResult,
  coreCaller,
  createApp as createAppWith,
  expectNoCredential as expectNoCredentialIn,
  initSdk,
  readNdjson,
  runCommand,
  startRuntime,
  stopRuntime,
} from './migrate-helpers.js';

const API_KEY = `legacy-migrate-${randomBytes(12).toString('hex')}`;
const APP = `leg-${randomBytes(3).toString('hex')}`;
let runtime: LocalProcess | undefined;
let dir: string;
const core = coreCaller(() => runtime!, API_KEY);

const createApp = (appId: string) => createAppWith(core, appId, { account_linking_enabled: true });

function migrate(appId: string, built: BuiltExport, from: string, extra: string[] = []) {
  return runCommand(
    ['migrate', built.file, '--from', from, '--app', appId, '--report', join(dir, `${appId}-${from}.ndjson`), ...extra],
    { AUTH_CORE_URL: runtime!.url, AUTH_CORE_API_KEY: API_KEY },
  );
}

/** Nothing secret in what the command printed or wrote, and no hash of any family. */
const expectNoCredential = (result: CommandResult, files: string[], secrets: readonly string[]) =>
  expectNoCredentialIn(
    result,
    files,
    [...secrets, API_KEY],
    /\$2[abxy]\$\d\d\$|\$argon2|\$pbkdf2-|pbkdf2_sha|\$scrypt\$|scrypt[:$]\d|\$[PHS]\$|\$wp\$|\{SSHA\}|sha1\$|md5\$/,
  );

async function expectSignsIn(tenantId: string, user: { email: string; password: string; id: string }) {
  for (const round of ['legacy hash', 'upgraded hash']) {
    const signIn = await EmailPassword.signIn(tenantId, user.email, user.password);
    expect(signIn.status, `${user.email} (${round})`).toBe('OK');
    if (signIn.status === 'OK') expect(signIn.user.id).toBe(user.id);
    expect((await EmailPassword.signIn(tenantId, user.email, `${user.password}-wrong`)).status).toBe(
      'WRONG_CREDENTIALS_ERROR',
    );
  }
}

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY, BCRYPT_LOG_ROUNDS: '6' }, 'migrate-legacy-e2e-'));
  await createApp(APP);
  initSdk('migrate-legacy', runtime, APP, API_KEY);
});

afterAll(() => stopRuntime(runtime, dir));

const sources: Array<[string, string, (d: string, tag: string) => Promise<BuiltExport>]> = [
  ['keycloak (realm users file)', 'keycloak', keycloakExport],
  ['keycloak (realm file holding the users)', 'keycloak', (d, tag) => keycloakExport(d, tag, { realmFile: true })],
  ['django (manage.py dumpdata auth.user)', 'django', djangoExport],
  ['wordpress (wp_users CSV)', 'wordpress', wordpressExport],
  ["clerk (dashboard CSV, Clerk's other hashers)", 'clerk', clerkLegacyExport],
];

describe('one command per legacy source', () => {
  for (const [label, from, build] of sources) {
    it(`${label}: every user imported or reported, every password user signs in before and after the upgrade`, async () => {
      const sub = mkdtempSync(join(dir, 'src-'));
      const built = await build(sub, randomBytes(3).toString('hex'));
      const result = await migrate(APP, built, from);
      const reportFile = join(dir, `${APP}-${from}.ndjson`);
      expect(result.code, result.stderr).toBe(built.refusedIds.length > 0 ? 1 : 0);
      expect(result.stdout).toMatch(new RegExp(`Migrated \\d+ ${from} records into app ${APP} \\(tenant public\\)`));
      const report = readNdjson(readFileSync(reportFile, 'utf8'));
      expect(report.map((l) => [l.sourceId, l.stage])).toEqual(built.refusedIds.map((id) => [id, 'convert']));
      for (const id of built.importedIds) expect(await supertokens.getUser(id), `user ${id}`).toBeDefined();
      for (const user of built.passwordUsers) await expectSignsIn('public', user);
      expectNoCredential(result, [reportFile, `${built.file}.${APP}.migrate-state.ndjson`], built.secrets);
    });
  }
});

describe('keycloak --with-roles', () => {
  it('the dry run names the realm roles the app lacks; once created, the users get them', async () => {
    const appId = `kcr-${randomBytes(3).toString('hex')}`;
    await createApp(appId);
    const sub = mkdtempSync(join(dir, 'roles-'));
    const built = await keycloakExport(sub, randomBytes(3).toString('hex'), { realmFile: true });

    const dry = await migrate(appId, built, 'keycloak', ['--with-roles', '--dry-run', '--json']);
    const summary = JSON.parse(dry.stdout);
    expect(summary).toMatchObject({ dryRun: true, missingRoles: ['admin'] });
    expect(dry.stderr).toMatch(new RegExp(`roles not in app ${appId}: admin — the users holding them are refused`));
    if (summary.coreChecked) {
      const report = readNdjson(readFileSync(join(dir, `${appId}-keycloak.ndjson`), 'utf8'));
      expect(report.filter((l) => l.stage === 'check').flatMap((l) => l.messages)).toEqual([
        'Role admin does not exist.',
        'Role admin does not exist.',
      ]);
    }
    expect((await core('GET', `/appid-${appId}/users/count`)).json.count).toBe(0);

    const role = await core('PUT', `/appid-${appId}/recipe/role`, { role: 'admin', permissions: ['shop:admin'] });
    expect(role.status, role.text).toBe(200);
    const real = await migrate(appId, built, 'keycloak', ['--with-roles']);
    expect(real.code, real.stderr).toBe(1);
    expect(real.stdout).not.toMatch(/Roles not in app/);
    const [ann, ben] = built.passwordUsers;
    const roles = async (id: string) =>
      (await core('GET', `/appid-${appId}/public/recipe/user/roles?userId=${encodeURIComponent(id)}`)).json;
    expect(await roles(ann!.id)).toEqual({ status: 'OK', roles: ['admin'] });
    // Keycloak's built-in default roles are not carried over.
    expect(await roles(ben!.id)).toEqual({ status: 'OK', roles: [] });
    expectNoCredential(real, [`${built.file}.${appId}.migrate-state.ndjson`], built.secrets);
  });
});
