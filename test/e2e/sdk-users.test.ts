import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import supertokens, { type RecipeUserId } from 'supertokens-node';
import AccountLinking from 'supertokens-node/recipe/accountlinking';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Multitenancy from 'supertokens-node/recipe/multitenancy';
import Passwordless from 'supertokens-node/recipe/passwordless';
import Session from 'supertokens-node/recipe/session';
import ThirdParty from 'supertokens-node/recipe/thirdparty';
import UserMetadata from 'supertokens-node/recipe/usermetadata';
import UserRoles from 'supertokens-node/recipe/userroles';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, stopRuntime } from './migrate-helpers.js';

/**
 * The user search, tenant membership, id mappings and permissions of docs/users.md through the
 * unmodified official backend SDK (supertokens-node), against `npm start` over HTTP with an API
 * key: `getUsersNewestFirst({query})` over users signed up with the SDK and imported (one by one,
 * and staged in bulk through the runtime's import worker); `Multitenancy.associateUserToTenant`,
 * and the SDK's own sign-in step that associates a primary user's login method with the tenant it
 * signs in to; user id mappings refused for an id with metadata, removed and their info updated;
 * permissions removed from a role and roles found by permission; a passwordless phone user shown
 * verified, and a primary user's phone-number change refused as the reference refuses it.
 */

const API_KEY = `users-e2e-${randomBytes(12).toString('hex')}`;
const APP_ID = `usr-${randomBytes(4).toString('hex')}`;
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;

/** The SDK's sign-in step that may add the session user's login method to the tenant (authUtils). */
const sdkRequire = createRequire(import.meta.url);
const { AuthUtils } = sdkRequire('supertokens-node/lib/build/authUtils') as { AuthUtils: any };
const stInstance = () =>
  (
    sdkRequire('supertokens-node/lib/build/supertokens') as { default: { getInstanceOrThrowError(): any } }
  ).default.getInstanceOrThrowError();

let runtime: LocalProcess | undefined;
const call = coreCaller(() => runtime!, API_KEY);
const core = (method: string, path: string, body?: unknown) => call(method, `/appid-${APP_ID}${path}`, body);

async function importUser(body: unknown): Promise<string> {
  const res = await core('POST', '/bulk-import/import', body);
  expect(res.status, res.text).toBe(200);
  return (res.json as { user: { id: string } }).user.id;
}

const emailsOf = (users: { emails: string[] }[]) => users.flatMap((u) => u.emails).sort();

beforeAll(async () => {
  runtime = await LocalProcess.start({
    args: ['--in-memory'],
    env: { API_KEYS: API_KEY, LOG_LEVEL: 'debug', BCRYPT_LOG_ROUNDS: '4' },
  });
  await runtime.waitUntilReady();
  const app = await call('PUT', '/recipe/multitenancy/app/v2', {
    appId: APP_ID,
    coreConfig: { account_linking_enabled: true },
  });
  expect(app.status, app.text).toBe(200);
  supertokens.init({
    appInfo: { appName: 'users-e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: `${runtime.url}/appid-${APP_ID}`, apiKey: API_KEY },
    telemetry: false,
    recipeList: [
      EmailPassword.init(),
      Passwordless.init({ contactMethod: 'EMAIL_OR_PHONE', flowType: 'USER_INPUT_CODE' }),
      ThirdParty.init(),
      AccountLinking.init({ shouldDoAutomaticAccountLinking: async () => ({ shouldAutomaticallyLink: false }) }),
      Multitenancy.init(),
      Session.init(),
      UserMetadata.init(),
      UserRoles.init(),
    ],
  });
  for (const tenantId of ['t1', 't2']) {
    expect((await Multitenancy.createOrUpdateTenant(tenantId, { firstFactors: ['emailpassword'] })).status).toBe('OK');
  }
});

afterAll(async () => {
  const logs = [runtime?.stdout ?? '', runtime?.stderr ?? ''].join('\n');
  expect(logs.includes(PASSWORD)).toBe(false);
  await stopRuntime(runtime, undefined);
});

describe('searching users through getUsersNewestFirst({query})', () => {
  it('finds users signed up with the SDK and imported, by email, phone number and provider', async () => {
    for (const email of ['john@gmail.com', 'test@supertokens.com', 'johndoe@testing.weird']) {
      expect((await EmailPassword.signUp('public', email, PASSWORD)).status).toBe('OK');
    }
    await importUser({ loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155550100' }] });
    await importUser({
      loginMethods: [
        { recipeId: 'thirdparty', thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: 'tp@thirdparty.io' },
      ],
    });
    const search = (query: Record<string, string>) => supertokens.getUsersNewestFirst({ tenantId: 'public', query });
    expect(emailsOf((await search({ email: 'john' })).users)).toEqual(['john@gmail.com', 'johndoe@testing.weird']);
    expect(emailsOf((await search({ email: 't' })).users)).toEqual([
      'johndoe@testing.weird',
      'test@supertokens.com',
      'tp@thirdparty.io',
    ]);
    expect((await search({ email: 'mail' })).users).toEqual([]);
    const byPhone = await search({ phone: '+1' });
    expect(byPhone.users.map((u) => u.phoneNumbers)).toEqual([['+14155550100']]);
    expect((await search({ provider: 'google' })).users.map((u) => u.thirdParty)).toEqual([
      [{ id: 'google', userId: 'g-1' }],
    ]);
    expect((await search({ provider: 'google', phone: '1' })).users).toEqual([]);
    const oldest = await supertokens.getUsersOldestFirst({ tenantId: 'public', query: { email: 'john' } });
    expect(emailsOf(oldest.users)).toEqual(['john@gmail.com', 'johndoe@testing.weird']);
    expect(oldest.nextPaginationToken).toBeUndefined();
  });

  it('finds users staged in bulk once the import worker has imported them', async () => {
    const users = ['ada', 'grace', 'edsger'].map((name) => ({
      loginMethods: [{ recipeId: 'emailpassword', email: `${name}@staged.example`, plainTextPassword: PASSWORD }],
    }));
    const staged = await core('POST', '/bulk-import/users', { users });
    expect(staged.status, staged.text).toBe(200);
    const deadline = Date.now() + 60_000;
    let found: { emails: string[] }[] = [];
    while (Date.now() < deadline) {
      found = (await supertokens.getUsersNewestFirst({ tenantId: 'public', query: { email: 'staged.example' } })).users;
      if (found.length === 3) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(emailsOf(found)).toEqual(['ada@staged.example', 'edsger@staged.example', 'grace@staged.example']);
  });
});

describe('tenant membership', () => {
  it('associates a recipe user with a tenant and takes it out again', async () => {
    const user = await EmailPassword.signUp('public', 'member@example.com', PASSWORD);
    if (user.status !== 'OK') throw new Error(user.status);
    const recipeUserId = user.user.loginMethods[0]?.recipeUserId as RecipeUserId;
    expect(await Multitenancy.associateUserToTenant('t1', recipeUserId)).toEqual({
      status: 'OK',
      wasAlreadyAssociated: false,
    });
    expect((await EmailPassword.signIn('t1', 'member@example.com', PASSWORD)).status).toBe('OK');
    expect(await Multitenancy.disassociateUserFromTenant('t1', recipeUserId)).toEqual({
      status: 'OK',
      wasAssociated: true,
    });
    expect((await EmailPassword.signIn('t1', 'member@example.com', PASSWORD)).status).toBe('WRONG_CREDENTIALS_ERROR');
    const other = await EmailPassword.signUp('t1', 'member@example.com', PASSWORD);
    expect(other.status).toBe('OK');
    expect((await Multitenancy.associateUserToTenant('t1', recipeUserId)).status).toBe('EMAIL_ALREADY_EXISTS_ERROR');
  });

  it('lets the SDK’s sign-in step add a primary user’s login method to the tenant it signs in to', async () => {
    const signUp = await EmailPassword.signUp('t1', 'roamer@example.com', PASSWORD);
    if (signUp.status !== 'OK') throw new Error(signUp.status);
    const recipeUserId = signUp.user.loginMethods[0]?.recipeUserId as RecipeUserId;
    expect((await AccountLinking.createPrimaryUser(recipeUserId)).status).toBe('OK');
    // A session of the primary user in t2 (where its login method is not), signing in there.
    const session = await Session.createNewSessionWithoutRequestResponse('t2', recipeUserId);
    const found = await AuthUtils.getAuthenticatingUserAndAddToCurrentTenantIfRequired({
      stInstance: stInstance(),
      recipeId: 'emailpassword',
      accountInfo: { email: 'roamer@example.com' },
      checkCredentialsOnTenant: async (tenantId: string) =>
        (await EmailPassword.verifyCredentials(tenantId, 'roamer@example.com', PASSWORD)).status === 'OK',
      tenantId: 't2',
      session,
      userContext: {},
    });
    expect(found.user.id).toBe(signUp.user.id);
    expect(found.loginMethod.tenantIds).toEqual(['t1', 't2']);
    const user = await supertokens.getUser(signUp.user.id);
    expect(user?.tenantIds).toEqual(['t1', 't2']);
    expect((await EmailPassword.signIn('t2', 'roamer@example.com', PASSWORD)).status).toBe('OK');
  });
});

describe('user id mappings and permissions', () => {
  it('refuses a mapping for an id with metadata unless forced; removes mappings and updates their info', async () => {
    const user = await EmailPassword.signUp('public', 'mapped@example.com', PASSWORD);
    if (user.status !== 'OK') throw new Error(user.status);
    await UserMetadata.updateUserMetadata(user.user.id, { plan: 'gold' });
    await expect(
      supertokens.createUserIdMapping({ superTokensUserId: user.user.id, externalUserId: 'ext-mapped' }),
    ).rejects.toThrow('UserId is already in use in UserMetadata recipe');
    expect(
      await supertokens.createUserIdMapping({
        superTokensUserId: user.user.id,
        externalUserId: 'ext-mapped',
        externalUserIdInfo: 'first',
        force: true,
      }),
    ).toEqual({ status: 'OK' });
    expect(
      await supertokens.updateOrDeleteUserIdMappingInfo({ userId: 'ext-mapped', externalUserIdInfo: 'second' }),
    ).toEqual({ status: 'OK' });
    expect(await supertokens.getUserIdMapping({ userId: user.user.id })).toMatchObject({
      status: 'OK',
      externalUserId: 'ext-mapped',
      externalUserIdInfo: 'second',
    });
    expect(await supertokens.deleteUserIdMapping({ userId: 'ext-mapped', userIdType: 'EXTERNAL' })).toEqual({
      status: 'OK',
      didMappingExist: true,
    });
    expect(await supertokens.deleteUserIdMapping({ userId: 'ext-mapped' })).toEqual({
      status: 'OK',
      didMappingExist: false,
    });
    expect(
      await supertokens.updateOrDeleteUserIdMappingInfo({ userId: 'ext-mapped', externalUserIdInfo: 'x' }),
    ).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
  });

  it('removes permissions from a role and finds the roles having a permission', async () => {
    await UserRoles.createNewRoleOrAddPermissions('editor', ['read', 'write']);
    await UserRoles.createNewRoleOrAddPermissions('reader', ['read']);
    expect(await UserRoles.getRolesThatHavePermission('read')).toEqual({ status: 'OK', roles: ['editor', 'reader'] });
    expect(await UserRoles.removePermissionsFromRole('editor', ['read'])).toEqual({ status: 'OK' });
    expect(await UserRoles.getRolesThatHavePermission('read')).toEqual({ status: 'OK', roles: ['reader'] });
    expect(await UserRoles.getPermissionsForRole('editor')).toEqual({ status: 'OK', permissions: ['write'] });
    expect(await UserRoles.removePermissionsFromRole('ghost', ['read'])).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
  });
});

describe('the reference rules the SDK’s own tests check', () => {
  it('shows a passwordless phone user verified, and refuses a primary user another’s phone number', async () => {
    const signUp = async (phoneNumber: string) => {
      const res = await Passwordless.signInUp({ tenantId: 'public', phoneNumber });
      expect(res.status).toBe('OK');
      expect(res.user.loginMethods[0]?.verified).toBe(true);
      const recipeUserId = res.user.loginMethods[0]?.recipeUserId as RecipeUserId;
      expect((await AccountLinking.createPrimaryUser(recipeUserId)).status).toBe('OK');
      return recipeUserId;
    };
    await signUp('+36301234567');
    const second = await signUp('+36701234567');
    expect(await Passwordless.updateUser({ recipeUserId: second, phoneNumber: '+36301234567' })).toMatchObject({
      status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR',
    });
  });
});
