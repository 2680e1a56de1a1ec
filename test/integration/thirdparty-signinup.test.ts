/**
 * `POST /<t>/recipe/signinup` through the real handlers against DynamoDB Local: creation, sign-in
 * of an existing third-party login (created here or imported), the email update rules, `isVerified`,
 * tenants, concurrency, and the reference's messages for bad input.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { appItems, call, createApp, importUser } from './users-support.js';

let appId: string;
const base = () => `/appid-${appId}`;

function signInUp(
  body: { thirdPartyId: string; thirdPartyUserId: string; email: { id: string; isVerified?: boolean } },
  tenantId = 'public',
  headers: Record<string, string> = {},
) {
  return call('POST', `${base()}/${tenantId}/recipe/signinup`, { body, headers });
}

const google = (uid: string, email: string, isVerified = false) => ({
  thirdPartyId: 'google',
  thirdPartyUserId: uid,
  email: { id: email, isVerified },
});

const byAccountInfo = (query: string, tenantId = 'public') =>
  call('GET', `${base()}/${tenantId}/users/by-accountinfo?${query}&doUnionOfAccountInfo=false`);

beforeAll(async () => {
  appId = await createApp({ account_linking_enabled: true }, ['t1'], 'tp');
});

describe('POST /<t>/recipe/signinup: sign-up', () => {
  it('creates a standalone third-party recipe user with the normalised email, verified as the provider says', async () => {
    const res = await signInUp(google('g-new-1', '  New.User@Example.COM ', true));
    expect(res.status, res.text).toBe(200);
    expect(res.contentType).toMatch(/^application\/json/);
    const { user, recipeUserId, createdNewUser, status } = res.json;
    expect(Object.keys(res.json)).toEqual(['status', 'createdNewUser', 'user', 'recipeUserId']);
    expect(status).toBe('OK');
    expect(createdNewUser).toBe(true);
    expect(recipeUserId).toBe(user.id);
    expect(user).toMatchObject({
      isPrimaryUser: false,
      tenantIds: ['public'],
      emails: ['new.user@example.com'],
      phoneNumbers: [],
      thirdParty: [{ id: 'google', userId: 'g-new-1' }],
      loginMethods: [
        {
          recipeId: 'thirdparty',
          recipeUserId: user.id,
          tenantIds: ['public'],
          email: 'new.user@example.com',
          thirdParty: { id: 'google', userId: 'g-new-1' },
          verified: true,
        },
      ],
    });
    expect(user.timeJoined).toBe(user.loginMethods[0].timeJoined);
    // The user is what a later read returns.
    const read = await call('GET', `${base()}/user/id?userId=${user.id}`);
    expect(read.json).toEqual({ status: 'OK', user });
    const found = await byAccountInfo('thirdPartyId=google&thirdPartyUserId=g-new-1');
    expect(found.json.users).toEqual([user]);
  });

  it('signs the same login in again: same user, createdNewUser false, verified never undone', async () => {
    const first = await signInUp(google('g-again', 'again@example.com', false));
    expect(first.json.createdNewUser).toBe(true);
    expect(first.json.user.loginMethods[0].verified).toBe(false);
    const second = await signInUp(google('g-again', 'again@example.com', false));
    expect(second.json).toEqual({ ...first.json, createdNewUser: false });
    const verified = await signInUp(google('g-again', 'AGAIN@example.com', true));
    expect(verified.json.createdNewUser).toBe(false);
    expect(verified.json.user.id).toBe(first.json.user.id);
    expect(verified.json.user.loginMethods[0].verified).toBe(true);
    const unverifiedSignIn = await signInUp(google('g-again', 'again@example.com', false));
    expect(unverifiedSignIn.json.user.loginMethods[0].verified).toBe(true);
  });

  it('keeps third-party logins apart by provider and by tenant', async () => {
    const a = await signInUp(google('shared-uid', 'one@example.com'));
    const b = await signInUp({
      thirdPartyId: 'github',
      thirdPartyUserId: 'shared-uid',
      email: { id: 'one@example.com', isVerified: false },
    });
    const c = await signInUp(google('shared-uid', 'one@example.com'), 't1');
    expect([a, b, c].map((r) => r.json.createdNewUser)).toEqual([true, true, true]);
    expect(new Set([a, b, c].map((r) => r.json.user.id)).size).toBe(3);
    expect(c.json.user.tenantIds).toEqual(['t1']);
    const inT1 = await byAccountInfo('thirdPartyId=google&thirdPartyUserId=shared-uid', 't1');
    expect(inT1.json.users.map((u: { id: string }) => u.id)).toEqual([c.json.user.id]);
  });

  it('creates one user when the same new login signs in many times at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => signInUp(google('g-race', 'race@example.com', true))),
    );
    for (const a of answers) expect(a.status, a.text).toBe(200);
    expect(answers.filter((a) => a.json.createdNewUser)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.json.user.id)).size).toBe(1);
    const found = await byAccountInfo('email=race@example.com');
    expect(found.json.users).toHaveLength(1);
    const items = await appItems(appId);
    const uniques = items.filter((i) => String(i.PK).endsWith('#TP#google#g-race'));
    expect(uniques.map((i) => i.SK)).toEqual(['UNIQUE#thirdparty']);
  });
});

describe('POST /<t>/recipe/signinup: the email follows the provider', () => {
  it('rewrites a changed email; the old one finds nothing, the new one unverified unless the provider says so', async () => {
    const created = await signInUp(google('g-move', 'before@example.com', true));
    const moved = await signInUp(google('g-move', 'after@example.com', false));
    expect(moved.json.createdNewUser).toBe(false);
    expect(moved.json.user.id).toBe(created.json.user.id);
    expect(moved.json.user.emails).toEqual(['after@example.com']);
    expect(moved.json.user.loginMethods[0].verified).toBe(false);
    expect((await byAccountInfo('email=before@example.com')).json.users).toEqual([]);
    expect((await byAccountInfo('email=after@example.com')).json.users.map((u: { id: string }) => u.id)).toEqual([
      created.json.user.id,
    ]);
    const verifiedMove = await signInUp(google('g-move', 'third@example.com', true));
    expect(verifiedMove.json.user.loginMethods[0]).toMatchObject({ email: 'third@example.com', verified: true });
  });

  it('lets a non-primary user take an email a primary user holds (the SDK decides about linking)', async () => {
    const primary = await signInUp(google('g-primary-holder', 'held@example.com', true));
    const made = await call('POST', `${base()}/recipe/accountlinking/user/primary`, {
      body: { recipeUserId: primary.json.user.id },
    });
    expect(made.json.status).toBe('OK');
    await signInUp(google('g-other', 'other@example.com'));
    const moved = await signInUp(google('g-other', 'held@example.com'));
    expect(moved.json.status).toBe('OK');
    expect(moved.json.user.emails).toEqual(['held@example.com']);
  });

  it("refuses to move a primary user's email onto another primary user's: EMAIL_CHANGE_NOT_ALLOWED_ERROR", async () => {
    const a = await signInUp(google('g-pa', 'pa@example.com', true));
    const b = await signInUp(google('g-pb', 'pb@example.com', true));
    for (const r of [a, b]) {
      const made = await call('POST', `${base()}/recipe/accountlinking/user/primary`, {
        body: { recipeUserId: r.json.user.id },
      });
      expect(made.json.status).toBe('OK');
    }
    const refused = await signInUp(google('g-pb', 'PA@example.com', true));
    expect(refused.status).toBe(200);
    expect(refused.json).toEqual({
      status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'Email already associated with another primary user.',
    });
    // Nothing changed.
    const still = await call('GET', `${base()}/user/id?userId=${b.json.user.id}`);
    expect(still.json.user.emails).toEqual(['pb@example.com']);
    // A free email moves, and the primary user then holds it: nobody else can become primary with it.
    const moved = await signInUp(google('g-pb', 'pb-new@example.com', true));
    expect(moved.json.user.emails).toEqual(['pb-new@example.com']);
    const other = await signInUp(google('g-pb-rival', 'pb-new@example.com', true));
    const check = await call(
      'GET',
      `${base()}/recipe/accountlinking/user/primary/check?recipeUserId=${other.json.user.id}`,
    );
    expect(check.json).toEqual({
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: b.json.user.id,
      description: "This user's email is already associated with another user ID",
    });
    // ...and the old email is free again.
    const freed = await signInUp(google('g-pb-old', 'pb@example.com', true));
    const freedCheck = await call(
      'GET',
      `${base()}/recipe/accountlinking/user/primary/check?recipeUserId=${freed.json.user.id}`,
    );
    expect(freedCheck.json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: false });
  });
});

describe('POST /<t>/recipe/signinup: imported users are found by the ids they were imported with', () => {
  it('an imported Google-only user (external id) signs in as itself, not as a new user', async () => {
    const imported = await importUser(appId, {
      externalUserId: 'google-oauth2|1057',
      loginMethods: [
        {
          recipeId: 'thirdparty',
          thirdPartyId: 'google',
          thirdPartyUserId: '1057',
          email: 'imported.google@example.com',
          isVerified: true,
          timeJoinedInMSSinceEpoch: 1_600_000_000_000,
        },
      ],
    });
    expect(imported.status, imported.text).toBe(200);
    const res = await signInUp(google('1057', 'Imported.Google@example.com', true));
    expect(res.json.createdNewUser).toBe(false);
    expect(res.json.user).toEqual(imported.json.user);
    expect(res.json.recipeUserId).toBe('google-oauth2|1057');
  });

  it('an imported linked password + Google user signs in to its primary user; recipeUserId is the Google method', async () => {
    const imported = await importUser(appId, {
      externalUserId: 'auth0|linked-1',
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'linked@example.com',
          passwordHash: '$2a$10$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe',
          hashingAlgorithm: 'BCRYPT',
          isPrimary: true,
          isVerified: true,
          timeJoinedInMSSinceEpoch: 1_600_000_000_000,
        },
        {
          recipeId: 'thirdparty',
          thirdPartyId: 'google',
          thirdPartyUserId: '2048',
          email: 'linked@example.com',
          isVerified: true,
          timeJoinedInMSSinceEpoch: 1_600_000_000_001,
        },
      ],
    });
    expect(imported.status, imported.text).toBe(200);
    const googleMethod = imported.json.user.loginMethods.find(
      (lm: { recipeId: string }) => lm.recipeId === 'thirdparty',
    );
    const res = await signInUp(google('2048', 'linked@example.com', true));
    expect(res.json).toEqual({
      status: 'OK',
      createdNewUser: false,
      user: imported.json.user,
      recipeUserId: googleMethod.recipeUserId,
    });
    expect(res.json.user.id).toBe('auth0|linked-1');
    expect(res.json.user.isPrimaryUser).toBe(true);
  });
});

describe('POST /<t>/recipe/signinup: input', () => {
  const bad = async (body: unknown, message: string, headers: Record<string, string> = {}) => {
    const res = await call('POST', `${base()}/public/recipe/signinup`, { body, headers });
    expect(res.status, res.text).toBe(400);
    expect(res.text).toBe(message);
  };

  it("answers the reference's parser messages", async () => {
    const email = { id: 'x@example.com', isVerified: true };
    await bad({ thirdPartyUserId: 'u', email }, "Field name 'thirdPartyId' is invalid in JSON input");
    await bad({ thirdPartyId: 7, thirdPartyUserId: 'u', email }, "Field name 'thirdPartyId' is invalid in JSON input");
    await bad({ thirdPartyId: 'google', email }, "Field name 'thirdPartyUserId' is invalid in JSON input");
    await bad({ thirdPartyId: 'google', thirdPartyUserId: 'u' }, "Field name 'email' is invalid in JSON input");
    await bad(
      { thirdPartyId: 'google', thirdPartyUserId: 'u', email: 'x@example.com' },
      "Field name 'email' is invalid in JSON input",
    );
    await bad(
      { thirdPartyId: 'google', thirdPartyUserId: 'u', email: { isVerified: true } },
      "Field name 'id' is invalid in JSON input",
    );
    await bad(
      { thirdPartyId: 'google', thirdPartyUserId: 'u', email: { id: 'x@example.com' } },
      "Field name 'isVerified' is invalid in JSON input",
    );
    await bad(
      { thirdPartyId: 'google', thirdPartyUserId: 'u', email: { id: 'x@example.com', isVerified: 'true' } },
      "Field name 'isVerified' is invalid in JSON input",
    );
    await bad(
      { thirdPartyId: 'g'.repeat(29), thirdPartyUserId: 'u', email },
      "Field name 'thirdPartyId' is too long. Max length is 28.",
    );
    await bad(
      { thirdPartyId: 'google', thirdPartyUserId: 'u'.repeat(257), email },
      "Field name 'thirdPartyUserId' is too long. Max length is 256.",
    );
    await bad(
      { thirdPartyId: 'google', thirdPartyUserId: 'u', email: { id: `${'e'.repeat(250)}@x.com`, isVerified: true } },
      "Field name 'email' is too long. Max length is 255.",
    );
    await bad({ thirdPartyId: 'a#b', thirdPartyUserId: 'u', email }, "Field name 'thirdPartyId' cannot contain '#'");
  });

  it('checks the input before the app and tenant, as the reference does', async () => {
    const body = google('u', 'x@example.com');
    const unknownTenant = await call('POST', `${base()}/nope/recipe/signinup`, { body });
    expect(unknownTenant.status).toBe(400);
    expect(unknownTenant.text).toMatch(/^AppId or tenantId not found => /);
    const badInputUnknownApp = await call('POST', '/appid-no-such-app-tp/public/recipe/signinup', { body: {} });
    expect(badInputUnknownApp.text).toBe("Field name 'thirdPartyId' is invalid in JSON input");
  });

  it('before CDI 4.0 isVerified is not read (nothing is verified); before 5.1 a tenant without third-party logins refuses', async () => {
    const old = await signInUp(
      { thirdPartyId: 'google', thirdPartyUserId: 'g-cdi3', email: { id: 'cdi3@example.com' } },
      'public',
      { 'cdi-version': '3.0' },
    );
    expect(old.status, old.text).toBe(200);
    expect(old.json.user.loginMethods[0].verified).toBe(false);
    const tenant = await call('PUT', `${base()}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: 'ep-only', firstFactors: ['emailpassword'] },
    });
    expect(tenant.status, tenant.text).toBe(200);
    const refused = await signInUp(google('g-ep-only', 'ep-only@example.com'), 'ep-only', { 'cdi-version': '4.0' });
    expect(refused.status).toBe(403);
    expect(refused.text).toBe('ThirdParty login not enabled for tenant');
    const current = await signInUp(google('g-ep-only', 'ep-only@example.com'), 'ep-only');
    expect(current.json.status).toBe('OK');
  });
});
