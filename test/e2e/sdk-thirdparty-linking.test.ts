/**
 * Third-party logins and account linking through the unmodified supertokens-node (EmailPassword,
 * ThirdParty, Session, AccountLinking with automatic linking) against `npm start` over HTTP: an
 * Auth0 export migrated with `npx auth-core migrate` (a Google-only user, a password + Google user
 * linked as one primary user) signs in with the ids the SDK's Google provider reports, without a
 * second user; and a new Google sign-in is linked automatically to an existing email/password user.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import supertokens from 'supertokens-node';
import AccountLinking from 'supertokens-node/recipe/accountlinking';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Session from 'supertokens-node/recipe/session';
import ThirdParty from 'supertokens-node/recipe/thirdparty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth0Export, type BuiltExport } from '../fixtures/migrate/exports.js';
import type { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, readNdjson, runCommand, startRuntime, stopRuntime } from './migrate-helpers.js';

const API_KEY = `tp-e2e-${randomBytes(12).toString('hex')}`;
const APP = `tpl-${randomBytes(3).toString('hex')}`;
let runtime: LocalProcess | undefined;
let dir: string;
let built: BuiltExport;
/** The Auth0 export's users, as the command read them. */
let exported: { user_id: string; email?: string; identities: { provider: string; user_id: string }[] }[];

const core = coreCaller(() => runtime!, API_KEY);

/** Whether linking needs verified account infos: tests pick per call (the SDK passes userContext through). */
type Context = { requireVerification?: boolean };

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'tp-e2e-'));
  const app = await core('PUT', '/recipe/multitenancy/app/v2', {
    appId: APP,
    coreConfig: { account_linking_enabled: true },
  });
  expect(app.status, app.text).toBe(200);

  built = await auth0Export(mkdtempSync(join(dir, 'auth0-')), randomBytes(3).toString('hex'));
  exported = readNdjson(gunzipSync(readFileSync(built.file)).toString('utf8'));
  const result = await runCommand(
    ['migrate', built.file, '--from', 'auth0', '--app', APP, '--report', join(dir, 'report.ndjson'), ...built.args],
    { AUTH_CORE_URL: runtime.url, AUTH_CORE_API_KEY: API_KEY },
  );
  expect(result.code, result.stderr).toBe(built.refusedIds.length > 0 ? 1 : 0);

  supertokens.init({
    appInfo: { appName: 'tp-e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: `${runtime.url}/appid-${APP}`, apiKey: API_KEY },
    telemetry: false,
    recipeList: [
      EmailPassword.init(),
      ThirdParty.init(),
      Session.init(),
      AccountLinking.init({
        shouldDoAutomaticAccountLinking: async (_info, _user, _session, _tenantId, userContext) => ({
          shouldAutomaticallyLink: true,
          shouldRequireVerification: (userContext as Context).requireVerification ?? true,
        }),
      }),
    ],
  });
});

afterAll(() => stopRuntime(runtime, dir));

/** The Google identity of an exported user: the id Auth0 holds is Google's `sub`, what the SDK's Google provider reports. */
function googleOf(userId: string) {
  const user = exported.find((u) => u.user_id === userId);
  const identity = user?.identities.find((i) => i.provider === 'google-oauth2');
  if (!user || !identity) throw new Error(`no Google identity for ${userId}`);
  return { sub: identity.user_id, email: (user.email ?? '').toLowerCase() };
}

const count = () => supertokens.getUserCount(undefined, 'public');

describe('users migrated from Auth0 sign in with Google through the SDK', () => {
  it('a Google-only user is found by its Google id, not created again', async () => {
    const id = exported.find((u) => u.identities.every((i) => i.provider === 'google-oauth2'))!.user_id;
    expect(id).toMatch(/^google-oauth2\|/);
    const google = googleOf(id);
    const before = await count();
    const result = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', google.sub, google.email, true);
    expect(result.status).toBe('OK');
    if (result.status !== 'OK') return;
    expect(result.createdNewRecipeUser).toBe(false);
    expect(result.user.id).toBe(id);
    expect(result.recipeUserId.getAsString()).toBe(id);
    expect(result.user.thirdParty).toEqual([{ id: 'google', userId: google.sub }]);
    expect(await count()).toBe(before);
    const byGoogle = await supertokens.listUsersByAccountInfo('public', {
      thirdParty: { id: 'google', userId: google.sub },
    });
    expect(byGoogle.map((u) => u.id)).toEqual([id]);
    // Signing in again changes nothing.
    const again = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', google.sub, google.email, true);
    expect(again.status === 'OK' && again.user.id).toBe(id);
    expect(await count()).toBe(before);
  });

  it('a password + Google user is one primary user: Google and the password sign in to it', async () => {
    const linked = exported.find((u) => u.identities.length === 2)!;
    const google = googleOf(linked.user_id);
    const before = await count();
    const result = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', google.sub, google.email, true);
    expect(result.status).toBe('OK');
    if (result.status !== 'OK') return;
    expect(result.createdNewRecipeUser).toBe(false);
    expect(result.user.id).toBe(linked.user_id);
    expect(result.user.isPrimaryUser).toBe(true);
    expect(result.user.loginMethods.map((lm) => lm.recipeId).sort()).toEqual(['emailpassword', 'thirdparty']);
    const googleMethod = result.user.loginMethods.find((lm) => lm.recipeId === 'thirdparty')!;
    expect(result.recipeUserId.getAsString()).toBe(googleMethod.recipeUserId.getAsString());
    const owner = built.passwordUsers.find((u) => u.id === linked.user_id)!;
    const signIn = await EmailPassword.signIn('public', owner.email, owner.password);
    expect(signIn.status === 'OK' && signIn.user.id).toBe(linked.user_id);
    expect(await count()).toBe(before);
  });
});

describe('automatic account linking', () => {
  it('links a new Google sign-in to an existing email/password user with the same email', async () => {
    const email = `auto-${randomBytes(3).toString('hex')}@example.com`;
    const context: Context = { requireVerification: false };
    const signUp = await EmailPassword.signUp('public', email, 'auto-pass-1', undefined, context);
    expect(signUp.status).toBe('OK');
    if (signUp.status !== 'OK') return;
    expect(signUp.user.isPrimaryUser).toBe(true); // the SDK made it primary: nothing to link it to yet
    const before = await count();
    const google = await ThirdParty.manuallyCreateOrUpdateUser(
      'public',
      'google',
      `g-${email}`,
      email,
      true,
      undefined,
      context,
    );
    expect(google.status).toBe('OK');
    if (google.status !== 'OK') return;
    expect(google.createdNewRecipeUser).toBe(true);
    expect(google.user.id).toBe(signUp.user.id);
    expect(google.user.loginMethods.map((lm) => lm.recipeId).sort()).toEqual(['emailpassword', 'thirdparty']);
    expect(await count()).toBe(before);
    const fetched = await supertokens.getUser(google.recipeUserId.getAsString());
    expect(fetched?.id).toBe(signUp.user.id);
  });

  it('with verification required, links a verified Google sign-in to a verified imported password user', async () => {
    const email = `verified-${randomBytes(3).toString('hex')}@example.com`;
    const imported = await core('POST', `/appid-${APP}/bulk-import/import`, {
      externalUserId: `legacy-${email}`,
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email,
          plainTextPassword: 'verified-pass-1',
          isVerified: true,
          timeJoinedInMSSinceEpoch: 1_600_000_000_000,
        },
      ],
    });
    expect(imported.status, imported.text).toBe(200);
    const google = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', `g-${email}`, email, true);
    expect(google.status).toBe('OK');
    if (google.status !== 'OK') return;
    expect(google.user.id).toBe(`legacy-${email}`);
    expect(google.user.isPrimaryUser).toBe(true);
    expect(google.user.loginMethods).toHaveLength(2);
    // An unverified login with the email of that primary user is not linked to it.
    const other = await ThirdParty.manuallyCreateOrUpdateUser('public', 'github', `gh-${email}`, email, false);
    expect(other.status).toBe('OK');
    if (other.status !== 'OK') return;
    expect(other.createdNewRecipeUser).toBe(true);
    expect(other.user.id).not.toBe(`legacy-${email}`);
    expect(other.user).toMatchObject({ isPrimaryUser: false, emails: [email] });
  });
});
