/**
 * The routes and rules of docs/users.md against DynamoDB Local: a recipe user joining and leaving
 * a tenant (statuses, what follows it: lists, counts, search, roles and sessions of the tenant),
 * user id mappings removed and their info updated (the data kept under an id that refuses a
 * mapping change), permissions removed and roles found by permission, a primary user's own login
 * method removed, and `PUT /recipe/user` refusing a primary user's taken email or phone number.
 */
import { describe, expect, it } from 'vitest';
import { call, createApp, createRole, importUser } from './users-support.js';

const PASSWORD = 'tenants-mappings-pass-1';
const CDI3 = { 'cdi-version': '3.0' };

async function appWith(tenants: string[] = ['t1', 't2']): Promise<string> {
  return createApp({ account_linking_enabled: true }, tenants, 'memb');
}

async function signUp(appId: string, email: string, tenantId = 'public') {
  const res = await call('POST', `/appid-${appId}/${tenantId}/recipe/signup`, { body: { email, password: PASSWORD } });
  expect(res.json.status, res.text).toBe('OK');
  return res.json.user as { id: string; loginMethods: { recipeUserId: string }[] };
}

async function imported(appId: string, body: unknown) {
  const res = await importUser(appId, body);
  expect(res.status, res.text).toBe(200);
  return res.json.user as { id: string; loginMethods: { recipeId: string; recipeUserId: string }[] };
}

const join = (appId: string, tenantId: string, body: unknown, headers: Record<string, string> = {}) =>
  call('POST', `/appid-${appId}/${tenantId}/recipe/multitenancy/tenant/user`, { body, headers });
const leave = (appId: string, tenantId: string, body: unknown, headers: Record<string, string> = {}) =>
  call('POST', `/appid-${appId}/${tenantId}/recipe/multitenancy/tenant/user/remove`, { body, headers });
const getUser = async (appId: string, userId: string) =>
  (await call('GET', `/appid-${appId}/user/id?userId=${encodeURIComponent(userId)}`)).json.user;
const count = async (appId: string, tenantId: string) =>
  (await call('GET', `/appid-${appId}/${tenantId}/users/count`)).json.count as number;

describe('POST /<t>/recipe/multitenancy/tenant/user and …/user/remove', () => {
  it('adds a recipe user to a tenant and takes it out again, with its lists, counts and search', async () => {
    const appId = await appWith();
    const user = await signUp(appId, 'roamer@example.com');
    expect((await join(appId, 't1', { recipeUserId: user.id })).json).toEqual({
      status: 'OK',
      wasAlreadyAssociated: false,
    });
    expect((await join(appId, 't1', { recipeUserId: user.id })).json).toEqual({
      status: 'OK',
      wasAlreadyAssociated: true,
    });
    expect((await getUser(appId, user.id)).tenantIds).toEqual(['public', 't1']);
    expect(await count(appId, 't1')).toBe(1);
    const listed = await call('GET', `/appid-${appId}/t1/users`);
    expect(listed.json.users.map((u: { id: string }) => u.id)).toEqual([user.id]);
    expect((await call('GET', `/appid-${appId}/t1/users?email=roam`)).json.users).toHaveLength(1);
    // It signs in there now.
    const signIn = await call('POST', `/appid-${appId}/t1/recipe/signin`, {
      body: { email: 'roamer@example.com', password: PASSWORD },
    });
    expect(signIn.json.status).toBe('OK');

    expect((await leave(appId, 't1', { recipeUserId: user.id })).json).toEqual({ status: 'OK', wasAssociated: true });
    expect((await leave(appId, 't1', { recipeUserId: user.id })).json).toEqual({ status: 'OK', wasAssociated: false });
    expect((await getUser(appId, user.id)).tenantIds).toEqual(['public']);
    expect(await count(appId, 't1')).toBe(0);
    expect((await call('GET', `/appid-${appId}/t1/users?email=roam`)).json.users).toEqual([]);
    // Out of its last tenant, it still exists (in no tenant's list).
    expect((await leave(appId, 'public', { recipeUserId: user.id })).json).toEqual({
      status: 'OK',
      wasAssociated: true,
    });
    expect((await getUser(appId, user.id)).tenantIds).toEqual([]);
    expect(await count(appId, 'public')).toBe(0);
  });

  it('takes an external id, reads userId before CDI 4.0, and refuses bad input with the core messages', async () => {
    const appId = await appWith();
    const user = await imported(appId, {
      externalUserId: 'ext-join',
      loginMethods: [{ recipeId: 'emailpassword', email: 'ext@example.com', plainTextPassword: PASSWORD }],
    });
    expect(user.id).toBe('ext-join');
    expect((await join(appId, 't1', { recipeUserId: 'ext-join' })).json.status).toBe('OK');
    expect((await join(appId, 't2', { userId: 'ext-join' }, CDI3)).json.status).toBe('OK');
    expect((await getUser(appId, 'ext-join')).tenantIds).toEqual(['public', 't1', 't2']);
    expect((await join(appId, 't1', { recipeUserId: 'nobody' })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await leave(appId, 't1', { recipeUserId: 'nobody' })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    const bad: [unknown, string][] = [
      [{}, "Field name 'recipeUserId' is invalid in JSON input"],
      [{ recipeUserId: 7 }, "Field name 'recipeUserId' is invalid in JSON input"],
      [{ recipeUserId: '  ' }, "Field name 'userId' cannot be an empty String"],
    ];
    for (const [body, message] of bad) {
      for (const send of [join, leave]) {
        const res = await send(appId, 't1', body);
        expect(res.status).toBe(400);
        expect(res.text).toBe(message);
      }
    }
    const unknownTenant = await join(appId, 'nope', { recipeUserId: 'ext-join' });
    expect(unknownTenant.status).toBe(400);
    expect(unknownTenant.text).toContain('not found');
  });

  it('answers the …_ALREADY_EXISTS statuses when the tenant has the login already', async () => {
    const appId = await appWith();
    await signUp(appId, 'dup@example.com', 't1');
    const ep = await signUp(appId, 'dup@example.com');
    expect((await join(appId, 't1', { recipeUserId: ep.id })).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    await imported(appId, {
      loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155550199', tenantIds: ['t1'] }],
    });
    const pl = await imported(appId, { loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155550199' }] });
    expect((await join(appId, 't1', { recipeUserId: pl.id })).json).toEqual({
      status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR',
    });
    await imported(appId, {
      loginMethods: [
        { recipeId: 'thirdparty', thirdPartyId: 'google', thirdPartyUserId: 'g1', email: 'a@x.com', tenantIds: ['t1'] },
      ],
    });
    const tp = await imported(appId, {
      loginMethods: [{ recipeId: 'thirdparty', thirdPartyId: 'google', thirdPartyUserId: 'g1', email: 'b@x.com' }],
    });
    expect((await join(appId, 't1', { recipeUserId: tp.id })).json).toEqual({
      status: 'THIRD_PARTY_USER_ALREADY_EXISTS_ERROR',
    });
    expect((await getUser(appId, tp.id)).tenantIds).toEqual(['public']);
    expect(await count(appId, 't1')).toBe(3);
  });

  it('refuses a primary user entering a tenant where another primary user holds its account info', async () => {
    const appId = await appWith();
    const other = await imported(appId, {
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'held@example.com',
          plainTextPassword: PASSWORD,
          isPrimary: true,
          tenantIds: ['t1'],
        },
        {
          recipeId: 'thirdparty',
          thirdPartyId: 'github',
          thirdPartyUserId: 'gh-held',
          email: 'gh@example.com',
          tenantIds: ['t1'],
        },
      ],
    });
    const primary = await imported(appId, {
      loginMethods: [
        { recipeId: 'emailpassword', email: 'held@example.com', plainTextPassword: PASSWORD, isPrimary: true },
        { recipeId: 'passwordless', email: 'mine@example.com', phoneNumber: '+14155550177' },
      ],
    });
    const pl = primary.loginMethods.find((lm) => lm.recipeId === 'passwordless')?.recipeUserId as string;
    // Its passwordless method would bring the group's email into t1, where `other` holds it.
    expect((await join(appId, 't1', { recipeUserId: pl })).json).toEqual({
      status: 'ASSOCIATION_NOT_ALLOWED_ERROR',
      reason: `Another primary user with email already exists: ${other.id}`,
    });
    expect((await getUser(appId, primary.id)).tenantIds).toEqual(['public']);
    // A third-party conflict is named first (its email is held there too).
    const withTp = await imported(appId, {
      loginMethods: [
        {
          recipeId: 'thirdparty',
          thirdPartyId: 'github',
          thirdPartyUserId: 'gh-held',
          email: 'gh@example.com',
          isPrimary: true,
        },
      ],
    });
    expect((await join(appId, 't1', { recipeUserId: withTp.id })).json).toEqual({
      status: 'ASSOCIATION_NOT_ALLOWED_ERROR',
      reason: `Another primary user with third party info already exists: ${other.id}`,
    });
    // Where nothing is held, the whole group's account infos are reserved in the new tenant.
    expect((await join(appId, 't2', { recipeUserId: pl })).json.status).toBe('OK');
    const rival = await signUp(appId, 'held@example.com', 't2');
    const makePrimary = await call('POST', `/appid-${appId}/recipe/accountlinking/user/primary`, {
      body: { recipeUserId: rival.id },
    });
    expect(makePrimary.json.status).toBe('ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR');
  });

  it('removes the roles and sessions the user id has in the tenant it leaves, and only there', async () => {
    const appId = await appWith();
    const user = await signUp(appId, 'leaver@example.com');
    await join(appId, 't1', { recipeUserId: user.id });
    await createRole(appId, 'editor');
    for (const tenantId of ['public', 't1']) {
      const role = await call('PUT', `/appid-${appId}/${tenantId}/recipe/user/role`, {
        body: { userId: user.id, role: 'editor' },
      });
      expect(role.json.status).toBe('OK');
      const session = await call('POST', `/appid-${appId}/${tenantId}/recipe/session`, {
        body: { userId: user.id, userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false },
      });
      expect(session.json.status, session.text).toBe('OK');
    }
    expect((await leave(appId, 't1', { recipeUserId: user.id })).json).toEqual({ status: 'OK', wasAssociated: true });
    const roles = async (tenantId: string) =>
      (await call('GET', `/appid-${appId}/${tenantId}/recipe/user/roles?userId=${user.id}`)).json.roles;
    expect(await roles('t1')).toEqual([]);
    expect(await roles('public')).toEqual(['editor']);
    const sessions = async (tenantId: string) =>
      (
        await call(
          'GET',
          `/appid-${appId}/${tenantId}/recipe/session/user?userId=${user.id}&fetchAcrossAllTenants=false`,
        )
      ).json.sessionHandles;
    expect(await sessions('t1')).toEqual([]);
    expect(await sessions('public')).toHaveLength(1);
  });
});

describe('POST /recipe/userid/map (data kept under the id)', () => {
  it('refuses a mapping for an id with metadata, roles or a session, unless forced', async () => {
    const appId = await appWith();
    const map = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      call('POST', `/appid-${appId}/recipe/userid/map`, { body, headers });
    const withMetadata = await signUp(appId, 'meta@example.com');
    await call('PUT', `/appid-${appId}/recipe/user/metadata`, {
      body: { userId: withMetadata.id, metadataUpdate: { plan: 'gold' } },
    });
    const refused = await map({ superTokensUserId: withMetadata.id, externalUserId: 'ext-meta' });
    expect(refused.status).toBe(400);
    expect(refused.text).toBe('UserId is already in use in UserMetadata recipe');
    expect((await map({ superTokensUserId: withMetadata.id, externalUserId: 'ext-meta', force: true })).json).toEqual({
      status: 'OK',
    });

    const withRole = await signUp(appId, 'role@example.com');
    await createRole(appId, 'viewer');
    await call('PUT', `/appid-${appId}/public/recipe/user/role`, { body: { userId: withRole.id, role: 'viewer' } });
    expect((await map({ superTokensUserId: withRole.id, externalUserId: 'ext-role' })).text).toBe(
      'UserId is already in use in UserRoles recipe',
    );

    const withSession = await signUp(appId, 'session@example.com');
    await call('POST', `/appid-${appId}/public/recipe/session`, {
      body: { userId: withSession.id, userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false },
    });
    expect((await map({ superTokensUserId: withSession.id, externalUserId: 'ext-session' })).text).toBe(
      'UserId is already in use in Session recipe',
    );

    // A verified email alone is no obstacle from CDI 4.0 (it stays the user's); before, it is.
    const verified = await imported(appId, {
      loginMethods: [
        { recipeId: 'emailpassword', email: 'verified@example.com', plainTextPassword: PASSWORD, isVerified: true },
      ],
    });
    const old = await map({ superTokensUserId: verified.id, externalUserId: 'ext-verified' }, CDI3);
    expect(old.status).toBe(400);
    expect(old.text).toBe('UserId is already in use in EmailVerification recipe');
    expect((await map({ superTokensUserId: verified.id, externalUserId: 'ext-verified' })).json).toEqual({
      status: 'OK',
    });
    const isVerified = await call(
      'GET',
      `/appid-${appId}/recipe/user/email/verify?userId=ext-verified&email=verified@example.com`,
    );
    expect(isVerified.json).toEqual({ status: 'OK', isVerified: true });
  });

  it('checks the external id before the SuperTokens id, as the reference orders it', async () => {
    const appId = await appWith();
    const a = await signUp(appId, 'a@example.com');
    const map = (body: Record<string, unknown>) => call('POST', `/appid-${appId}/recipe/userid/map`, { body });
    expect((await map({ superTokensUserId: a.id, externalUserId: 'taken' })).json.status).toBe('OK');
    expect((await map({ superTokensUserId: 'nobody', externalUserId: 'taken' })).json).toEqual({
      status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
      doesSuperTokensUserIdExist: false,
      doesExternalUserIdExist: true,
    });
    expect((await map({ superTokensUserId: 'nobody', externalUserId: 'free' })).json).toEqual({
      status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR',
    });
    const b = await signUp(appId, 'b@example.com');
    const isUserId = await map({ superTokensUserId: a.id, externalUserId: b.id });
    expect(isUserId.status).toBe(400);
    expect(isUserId.text).toBe('Cannot create a userId mapping where the externalId is also a SuperTokens userID');
  });
});

describe('POST /recipe/userid/map/remove', () => {
  it('removes a mapping named by either id, and says whether there was one', async () => {
    const appId = await appWith();
    const remove = (body: Record<string, unknown>) =>
      call('POST', `/appid-${appId}/recipe/userid/map/remove`, { body });
    const user = await signUp(appId, 'mapped@example.com');
    const map = (externalUserId: string) =>
      call('POST', `/appid-${appId}/recipe/userid/map`, { body: { superTokensUserId: user.id, externalUserId } });
    expect((await map('ext-1')).json.status).toBe('OK');
    expect((await remove({ userId: 'ext-1', userIdType: 'SUPERTOKENS' })).json).toEqual({
      status: 'OK',
      didMappingExist: false,
    });
    expect((await remove({ userId: user.id, userIdType: 'EXTERNAL' })).json).toEqual({
      status: 'OK',
      didMappingExist: false,
    });
    expect((await remove({ userId: 'ext-1', userIdType: 'EXTERNAL' })).json).toEqual({
      status: 'OK',
      didMappingExist: true,
    });
    expect((await getUser(appId, user.id)).id).toBe(user.id);
    expect((await call('GET', `/appid-${appId}/recipe/userid/map?userId=ext-1`)).json.status).toBe(
      'UNKNOWN_MAPPING_ERROR',
    );
    expect((await map('ext-2')).json.status).toBe('OK');
    expect((await remove({ userId: user.id })).json).toEqual({ status: 'OK', didMappingExist: true });
    expect((await map('ext-3')).json.status).toBe('OK');
    expect((await remove({ userId: 'ext-3', userIdType: 'ANY' })).json).toEqual({
      status: 'OK',
      didMappingExist: true,
    });
    expect((await remove({ userId: 'ext-3' })).json).toEqual({ status: 'OK', didMappingExist: false });
  });

  it('refuses while the external id has data of its own, unless forced', async () => {
    const appId = await appWith();
    const user = await signUp(appId, 'kept@example.com');
    await call('POST', `/appid-${appId}/recipe/userid/map`, {
      body: { superTokensUserId: user.id, externalUserId: 'ext-k' },
    });
    await call('PUT', `/appid-${appId}/recipe/user/metadata`, { body: { userId: 'ext-k', metadataUpdate: { a: 1 } } });
    const remove = (body: Record<string, unknown>) =>
      call('POST', `/appid-${appId}/recipe/userid/map/remove`, { body });
    const refused = await remove({ userId: 'ext-k' });
    expect(refused.status).toBe(400);
    expect(refused.text).toBe('UserId is already in use in UserMetadata recipe');
    expect((await getUser(appId, 'ext-k')).id).toBe('ext-k');
    expect((await remove({ userId: 'ext-k', force: true })).json).toEqual({ status: 'OK', didMappingExist: true });
    expect((await getUser(appId, user.id)).id).toBe(user.id);
  });

  it('refuses bad input with the core messages', async () => {
    const appId = await appWith();
    const bad: [unknown, string][] = [
      [{}, "Field name 'userId' is invalid in JSON input"],
      [{ userId: ' ' }, "Field name 'userId' cannot be an empty String"],
      [
        { userId: 'u', userIdType: 'OTHER' },
        "Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'",
      ],
      [{ userId: 'u', userIdType: 3 }, "Field name 'userIdType' is invalid in JSON input"],
      [{ userId: 'u', force: 'yes' }, "Field name 'force' is invalid in JSON input"],
    ];
    for (const [body, message] of bad) {
      const res = await call('POST', `/appid-${appId}/recipe/userid/map/remove`, { body });
      expect(res.status).toBe(400);
      expect(res.text).toBe(message);
    }
  });
});

describe('PUT /recipe/userid/external-user-id-info', () => {
  it('sets and removes the info of a mapping named by either id', async () => {
    const appId = await appWith();
    const user = await signUp(appId, 'info@example.com');
    await call('POST', `/appid-${appId}/recipe/userid/map`, {
      body: { superTokensUserId: user.id, externalUserId: 'ext-info', externalUserIdInfo: 'first' },
    });
    const put = (body: Record<string, unknown>) =>
      call('PUT', `/appid-${appId}/recipe/userid/external-user-id-info`, { body });
    const info = async () => (await call('GET', `/appid-${appId}/recipe/userid/map?userId=ext-info`)).json;
    expect((await put({ userId: 'ext-info', externalUserIdInfo: ' second ' })).json).toEqual({ status: 'OK' });
    expect((await info()).externalUserIdInfo).toBe('second');
    expect((await put({ userId: user.id, userIdType: 'SUPERTOKENS', externalUserIdInfo: 'third' })).json).toEqual({
      status: 'OK',
    });
    expect((await info()).externalUserIdInfo).toBe('third');
    expect((await put({ userId: user.id, externalUserIdInfo: null })).json).toEqual({ status: 'OK' });
    expect(await info()).toEqual({ status: 'OK', superTokensUserId: user.id, externalUserId: 'ext-info' });
    expect((await put({ userId: 'ext-info', userIdType: 'SUPERTOKENS', externalUserIdInfo: 'x' })).json).toEqual({
      status: 'UNKNOWN_MAPPING_ERROR',
    });
    expect((await put({ userId: 'nobody', externalUserIdInfo: 'x' })).json).toEqual({
      status: 'UNKNOWN_MAPPING_ERROR',
    });
    const bad: [unknown, string][] = [
      [{ userId: 'ext-info' }, "Field name 'externalUserIdInfo' is invalid in JSON input"],
      [{ userId: 'ext-info', externalUserIdInfo: ' ' }, "Field name 'externalUserIdInfo' cannot be an empty String"],
      [{ userId: '', externalUserIdInfo: 'x' }, "Field name 'userId' cannot be an empty String"],
    ];
    for (const [body, message] of bad) {
      const res = await put(body as Record<string, unknown>);
      expect(res.status).toBe(400);
      expect(res.text).toBe(message);
    }
  });
});

describe('POST /recipe/role/permissions/remove and GET /recipe/permission/roles', () => {
  it('removes some or all permissions of a role, and finds the roles that have a permission', async () => {
    const appId = await appWith();
    const put = (role: string, permissions: string[]) =>
      call('PUT', `/appid-${appId}/recipe/role`, { body: { role, permissions } });
    await put('editor', ['read', 'write', 'delete']);
    await put('reader', ['read']);
    const rolesWith = async (permission: string) =>
      (await call('GET', `/appid-${appId}/recipe/permission/roles?permission=${permission}`)).json;
    expect(await rolesWith('read')).toEqual({ status: 'OK', roles: ['editor', 'reader'] });
    expect(await rolesWith('%20write%20')).toEqual({ status: 'OK', roles: ['editor'] });
    expect(await rolesWith('nothing')).toEqual({ status: 'OK', roles: [] });
    const remove = (body: unknown) => call('POST', `/appid-${appId}/recipe/role/permissions/remove`, { body });
    expect((await remove({ role: 'editor', permissions: [' read ', 'none'] })).json).toEqual({ status: 'OK' });
    expect(await rolesWith('read')).toEqual({ status: 'OK', roles: ['reader'] });
    const permissions = async (role: string) =>
      (await call('GET', `/appid-${appId}/recipe/role/permissions?role=${role}`)).json.permissions;
    expect(await permissions('editor')).toEqual(['delete', 'write']);
    expect((await remove({ role: 'editor', permissions: [] })).json).toEqual({ status: 'OK' });
    expect(await permissions('editor')).toEqual(['delete', 'write']);
    expect((await remove({ role: 'editor' })).json).toEqual({ status: 'OK' });
    expect(await permissions('editor')).toEqual([]);
    expect((await remove({ role: 'ghost', permissions: ['read'] })).json).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    expect((await remove({ role: 'ghost' })).json).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    const bad: [string, string, unknown, string][] = [
      ['POST', '/recipe/role/permissions/remove', { role: ' ' }, "Field name 'role' cannot be an empty String"],
      [
        'POST',
        '/recipe/role/permissions/remove',
        { role: 'editor', permissions: [''] },
        "Field name 'permissions' cannot contain an empty string",
      ],
      [
        'POST',
        '/recipe/role/permissions/remove',
        { role: 'editor', permissions: 'read' },
        "Field name 'permissions' is invalid in JSON input",
      ],
      ['GET', '/recipe/permission/roles', undefined, "Field name 'permission' is missing in GET request"],
      [
        'GET',
        '/recipe/permission/roles?permission=%20',
        undefined,
        "Field name 'permission' cannot be an empty String",
      ],
    ];
    for (const [method, path, body, message] of bad) {
      const res = await call(method, `/appid-${appId}${path}`, body === undefined ? {} : { body });
      expect(res.status, path).toBe(400);
      expect(res.text).toBe(message);
    }
    // App-level routes: a non-public tenant in the path is refused.
    const tenant = await call('GET', `/appid-${appId}/t1/recipe/permission/roles?permission=read`);
    expect(tenant.status).toBe(403);
  });
});

describe('removing one login method of a primary user', () => {
  it('keeps the user under its id, external id and metadata, joined when its earliest remaining method did', async () => {
    const appId = await appWith();
    const primary = await imported(appId, {
      externalUserId: 'ext-primary',
      userMetadata: { plan: 'gold' },
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'first@example.com',
          plainTextPassword: PASSWORD,
          isPrimary: true,
          timeJoinedInMSSinceEpoch: 1000,
        },
        {
          recipeId: 'thirdparty',
          thirdPartyId: 'google',
          thirdPartyUserId: 'g-2',
          email: 'first@example.com',
          timeJoinedInMSSinceEpoch: 2000,
        },
        { recipeId: 'passwordless', phoneNumber: '+14155550155', timeJoinedInMSSinceEpoch: 3000 },
      ],
    });
    const [ep, tp, pl] = ['emailpassword', 'thirdparty', 'passwordless'].map(
      (r) => (primary.loginMethods.find((lm) => lm.recipeId === r) as { recipeUserId: string }).recipeUserId,
    );
    const remove = (userId: string) =>
      call('POST', `/appid-${appId}/user/remove`, { body: { userId, removeAllLinkedAccounts: false } });
    // The primary user's own login method (named by its external id).
    expect((await remove('ext-primary')).json).toEqual({ status: 'OK' });
    const after = await getUser(appId, 'ext-primary');
    expect(after).toMatchObject({ id: 'ext-primary', isPrimaryUser: true, timeJoined: 2000 });
    expect(after.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toEqual([tp, pl]);
    expect(ep).toBe('ext-primary');
    const metadata = await call('GET', `/appid-${appId}/recipe/user/metadata?userId=ext-primary`);
    expect(metadata.json.metadata).toEqual({ plan: 'gold' });
    // A linked login method: the earliest left is the passwordless one.
    expect((await remove(tp as string)).json).toEqual({ status: 'OK' });
    expect(await getUser(appId, 'ext-primary')).toMatchObject({
      timeJoined: 3000,
      loginMethods: [{ recipeUserId: pl }],
    });
    const listed = (await call('GET', `/appid-${appId}/public/users`)).json.users;
    expect(listed).toMatchObject([{ id: 'ext-primary', timeJoined: 3000 }]);
  });
});

describe('PUT /recipe/user for a primary user', () => {
  it('refuses a passwordless phone number another passwordless user has as a change not allowed', async () => {
    const appId = await appWith();
    await imported(appId, {
      loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+36301234567', isPrimary: true }],
    });
    const second = await imported(appId, {
      loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+36701234567', isPrimary: true }],
    });
    const standalone = await imported(appId, {
      loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+36201234567' }],
    });
    const put = (body: Record<string, unknown>) =>
      call('PUT', `/appid-${appId}/recipe/user`, { body, headers: { rid: 'passwordless' } });
    expect((await put({ recipeUserId: second.id, phoneNumber: '+36301234567' })).json).toEqual({
      status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New phone number is associated with another primary user ID',
    });
    expect((await put({ recipeUserId: second.id, email: 'x@example.com', phoneNumber: '+36201234567' })).json).toEqual({
      status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New phone number is associated with another primary user ID',
    });
    expect((await put({ recipeUserId: standalone.id, phoneNumber: '+36701234567' })).json).toEqual({
      status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR',
    });
    const emailTaken = await imported(appId, {
      loginMethods: [{ recipeId: 'passwordless', email: 'pl@example.com' }],
    });
    expect(emailTaken.id).toBeTruthy();
    expect((await put({ recipeUserId: second.id, email: 'pl@example.com', phoneNumber: '+36201234567' })).json).toEqual(
      {
        status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR',
        reason: 'New email is associated with another primary user ID',
      },
    );
  });

  it('refuses an email/password email another email/password user has as a change not allowed', async () => {
    const appId = await appWith();
    await signUp(appId, 'owner@example.com');
    const primary = await imported(appId, {
      loginMethods: [
        { recipeId: 'emailpassword', email: 'p@example.com', plainTextPassword: PASSWORD, isPrimary: true },
      ],
    });
    const plain = await signUp(appId, 'plain@example.com');
    const put = (body: Record<string, unknown>) => call('PUT', `/appid-${appId}/recipe/user`, { body });
    expect((await put({ recipeUserId: primary.id, email: 'owner@example.com' })).json).toEqual({
      status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New email is associated with another primary user ID',
    });
    expect((await put({ recipeUserId: plain.id, email: 'owner@example.com' })).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
  });
});
