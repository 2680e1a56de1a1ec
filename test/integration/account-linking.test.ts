/**
 * `/recipe/accountlinking/user/…` through the real handlers against DynamoDB Local: the reference's
 * answers and messages, what a link and an unlink store (users, account infos, reservations,
 * counters, list entries, mappings), users imported as linked, concurrent links, and the app's
 * switch (402 when off).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { appItems, call, createApp, importUser, keysOf } from './users-support.js';

const PASSWORD = 'linking-pass-1';
const HASH = '$2a$10$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe'; // 'correct horse'

let appId: string;
const base = () => `/appid-${appId}`;
let seq = 0;
const unique = (label: string) => `${label}-${++seq}-${Math.random().toString(36).slice(2, 6)}`;

async function signUp(email: string, tenantId = 'public') {
  const res = await call('POST', `${base()}/${tenantId}/recipe/signup`, { body: { email, password: PASSWORD } });
  expect(res.json?.status, res.text).toBe('OK');
  return res.json.user as { id: string };
}

async function thirdParty(email: string, tenantId = 'public', uid = unique('uid')) {
  const res = await call('POST', `${base()}/${tenantId}/recipe/signinup`, {
    body: { thirdPartyId: 'google', thirdPartyUserId: uid, email: { id: email, isVerified: true } },
  });
  expect(res.json?.status, res.text).toBe('OK');
  return res.json.user as { id: string };
}

const createPrimary = (recipeUserId: string, app = appId) =>
  call('POST', `/appid-${app}/recipe/accountlinking/user/primary`, { body: { recipeUserId } });
const canCreatePrimary = (recipeUserId: string) =>
  call('GET', `${base()}/recipe/accountlinking/user/primary/check?recipeUserId=${encodeURIComponent(recipeUserId)}`);
const link = (recipeUserId: string, primaryUserId: string, app = appId) =>
  call('POST', `/appid-${app}/recipe/accountlinking/user/link`, { body: { recipeUserId, primaryUserId } });
const canLink = (recipeUserId: string, primaryUserId: string) =>
  call(
    'GET',
    `${base()}/recipe/accountlinking/user/link/check?recipeUserId=${encodeURIComponent(recipeUserId)}&primaryUserId=${encodeURIComponent(primaryUserId)}`,
  );
const unlink = (recipeUserId: string) =>
  call('POST', `${base()}/recipe/accountlinking/user/unlink`, { body: { recipeUserId } });
const getUser = async (userId: string) =>
  (await call('GET', `${base()}/user/id?userId=${encodeURIComponent(userId)}`)).json;
const count = async (tenantId = 'public') =>
  (await call('GET', `${base()}/${tenantId}/users/count`)).json.count as number;

async function primaryOf(email: string) {
  const user = await signUp(email);
  const made = await createPrimary(user.id);
  expect(made.json.status, made.text).toBe('OK');
  return user;
}

beforeAll(async () => {
  appId = await createApp({ account_linking_enabled: true }, ['t1'], 'al');
});

describe('primary users', () => {
  it('checks, creates, and answers wasAlreadyAPrimaryUser the second time', async () => {
    const user = await signUp(`${unique('p')}@example.com`);
    expect((await canCreatePrimary(user.id)).json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: false });
    const made = await createPrimary(user.id);
    expect(made.status).toBe(200);
    expect(Object.keys(made.json)).toEqual(['status', 'wasAlreadyAPrimaryUser', 'user']);
    expect(made.json).toMatchObject({
      status: 'OK',
      wasAlreadyAPrimaryUser: false,
      user: { id: user.id, isPrimaryUser: true },
    });
    expect((await getUser(user.id)).user).toEqual(made.json.user);
    const again = await createPrimary(user.id);
    expect(again.json).toEqual({ ...made.json, wasAlreadyAPrimaryUser: true });
    expect((await canCreatePrimary(user.id)).json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: true });
  });

  it('refuses an account info another primary user holds, naming it by its external id', async () => {
    const email = `${unique('taken')}@example.com`;
    const holder = await primaryOf(email);
    const mapped = await call('POST', `${base()}/recipe/userid/map`, {
      body: { superTokensUserId: holder.id, externalUserId: `ext-${holder.id}` },
    });
    expect(mapped.json.status).toBe('OK');
    const rival = await thirdParty(email.toUpperCase());
    const expected = {
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: `ext-${holder.id}`,
      description: "This user's email is already associated with another user ID",
    };
    expect((await canCreatePrimary(rival.id)).json).toEqual(expected);
    expect((await createPrimary(rival.id)).json).toEqual(expected);
    expect((await getUser(rival.id)).user.isPrimaryUser).toBe(false);
    // The same email in another tenant is not held there.
    const elsewhere = await thirdParty(email, 't1');
    expect((await createPrimary(elsewhere.id)).json.status).toBe('OK');
  });

  it('answers RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR for a linked recipe user', async () => {
    const email = `${unique('l')}@example.com`;
    const primary = await primaryOf(email);
    const recipe = await thirdParty(email);
    expect((await link(recipe.id, primary.id)).json.status).toBe('OK');
    const expected = {
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
      primaryUserId: primary.id,
      description: 'This user ID is already linked to another user ID',
    };
    expect((await canCreatePrimary(recipe.id)).json).toEqual(expected);
    expect((await createPrimary(recipe.id)).json).toEqual(expected);
  });

  it("answers the reference's messages for unknown ids and missing fields", async () => {
    const tooLong = 'u'.repeat(3000); // longer than any id: names nobody, as in the reference
    for (const res of [
      await canCreatePrimary('no-such-user'),
      await createPrimary('no-such-user'),
      await canCreatePrimary(tooLong),
      await unlink(tooLong),
    ]) {
      expect(res.status).toBe(400);
      expect(res.text).toBe('Unknown user ID provided');
    }
    const missingQuery = await call('GET', `${base()}/recipe/accountlinking/user/primary/check`);
    expect([missingQuery.status, missingQuery.text]).toEqual([
      400,
      "Field name 'recipeUserId' is missing in GET request",
    ]);
    const missingBody = await call('POST', `${base()}/recipe/accountlinking/user/primary`, { body: {} });
    expect([missingBody.status, missingBody.text]).toEqual([400, "Field name 'recipeUserId' is invalid in JSON input"]);
    const tenantPath = await call('POST', `${base()}/t1/recipe/accountlinking/user/primary`, {
      body: { recipeUserId: 'x' },
    });
    expect([tenantPath.status, tenantPath.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
  });
});

describe('linking', () => {
  it('moves the recipe user under the primary user: one user, both login methods, counts and lists follow', async () => {
    const email = `${unique('link')}@example.com`;
    const before = await count();
    const primary = await primaryOf(email);
    const recipe = await thirdParty(email);
    expect(await count()).toBe(before + 2);
    expect((await canLink(recipe.id, primary.id)).json).toEqual({ status: 'OK', accountsAlreadyLinked: false });
    const linked = await link(recipe.id, primary.id);
    expect(linked.status, linked.text).toBe(200);
    expect(Object.keys(linked.json)).toEqual(['status', 'accountsAlreadyLinked', 'user']);
    const user = linked.json.user;
    expect(linked.json).toMatchObject({ status: 'OK', accountsAlreadyLinked: false });
    expect(user).toMatchObject({ id: primary.id, isPrimaryUser: true, emails: [email] });
    expect(user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId).sort()).toEqual(
      [primary.id, recipe.id].sort(),
    );
    expect((await getUser(recipe.id)).user).toEqual(user);
    expect((await getUser(primary.id)).user).toEqual(user);
    expect(await count()).toBe(before + 1);
    const listed = await call('GET', `${base()}/public/users?limit=500`);
    expect(listed.json.users.filter((u: { id: string }) => u.id === recipe.id)).toEqual([]);
    expect(listed.json.users.filter((u: { id: string }) => u.id === primary.id)).toEqual([user]);
    const byEmail = await call(
      'GET',
      `${base()}/public/users/by-accountinfo?email=${email}&doUnionOfAccountInfo=false`,
    );
    expect(byEmail.json.users).toEqual([user]);
    // Again: already linked.
    expect((await link(recipe.id, primary.id)).json).toEqual({ status: 'OK', accountsAlreadyLinked: true, user });
    expect((await canLink(recipe.id, primary.id)).json).toEqual({ status: 'OK', accountsAlreadyLinked: true });
    // Any id of the group names the primary user.
    expect((await link(primary.id, recipe.id)).json.accountsAlreadyLinked).toBe(true);
  });

  it('answers INPUT_USER_IS_NOT_A_PRIMARY_USER and RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', async () => {
    const a = await signUp(`${unique('a')}@example.com`);
    const b = await signUp(`${unique('b')}@example.com`);
    expect((await canLink(a.id, b.id)).json).toEqual({ status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' });
    expect((await link(a.id, b.id)).json).toEqual({ status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' });
    const pa = await createPrimary(a.id);
    await createPrimary(b.id);
    const expected = {
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: a.id,
      description: 'The input recipe user ID is already linked to another user ID',
    };
    expect((await canLink(a.id, b.id)).json).toEqual(expected);
    expect((await link(a.id, b.id)).json).toEqual({ ...expected, user: pa.json.user });
  });

  it("refuses a link when the recipe user's email belongs to another primary user", async () => {
    const primary = await primaryOf(`${unique('p')}@example.com`);
    const otherEmail = `${unique('other')}@example.com`;
    const other = await primaryOf(otherEmail);
    const recipe = await thirdParty(otherEmail);
    const expected = {
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: other.id,
      description: "This user's email is already associated with another user ID",
    };
    expect((await canLink(recipe.id, primary.id)).json).toEqual(expected);
    expect((await link(recipe.id, primary.id)).json).toEqual(expected);
    expect((await getUser(recipe.id)).user.isPrimaryUser).toBe(false);
  });

  it("checks the union of both users' tenants: the primary's email may not land beside another primary's", async () => {
    const email = `${unique('union')}@example.com`;
    const primary = await primaryOf(email); // public
    const rivalInT1 = await signUp(email, 't1');
    expect((await createPrimary(rivalInT1.id)).json.status).toBe('OK');
    const recipe = await thirdParty(`${unique('r')}@example.com`, 't1');
    const answer = await link(recipe.id, primary.id);
    expect(answer.json).toEqual({
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: rivalInT1.id,
      description: "This user's email is already associated with another user ID",
    });
  });

  it('lets one of two concurrent links of recipe users with the same email to different primaries win', async () => {
    for (let round = 0; round < 4; round++) {
      const email = `${unique('race')}@example.com`;
      const p1 = await primaryOf(`${unique('p1')}@example.com`);
      const p2 = await primaryOf(`${unique('p2')}@example.com`);
      const r1 = await thirdParty(email);
      const r2 = await thirdParty(email);
      const [a, b] = await Promise.all([link(r1.id, p1.id), link(r2.id, p2.id)]);
      const statuses = [a.json.status, b.json.status].sort();
      expect(statuses).toEqual(['ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', 'OK']);
      const [winner, loser] = a.json.status === 'OK' ? [p1, b] : [p2, a];
      expect(loser.json.primaryUserId).toBe(winner.id);
      const owners = await call(
        'GET',
        `${base()}/public/users/by-accountinfo?email=${email}&doUnionOfAccountInfo=false`,
      );
      expect(
        owners.json.users.filter((u: { isPrimaryUser: boolean }) => u.isPrimaryUser).map((u: { id: string }) => u.id),
      ).toEqual([winner.id]);
    }
  });

  it('lets one of two concurrent links of the same recipe user win', async () => {
    const email = `${unique('same')}@example.com`;
    const p1 = await primaryOf(`${unique('q1')}@example.com`);
    const p2 = await primaryOf(`${unique('q2')}@example.com`);
    const recipe = await thirdParty(email);
    const [a, b] = await Promise.all([link(recipe.id, p1.id), link(recipe.id, p2.id)]);
    const statuses = [a.json.status, b.json.status].sort();
    expect(statuses).toEqual(['OK', 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR']);
    const owner = (await getUser(recipe.id)).user;
    expect([p1.id, p2.id]).toContain(owner.id);
    expect(owner.loginMethods).toHaveLength(2);
  });

  it('keeps mappings with their ids and metadata and roles under the ids they were stored for', async () => {
    const email = `${unique('ext')}@example.com`;
    const primary = await primaryOf(email);
    const recipe = await thirdParty(email);
    await call('POST', `${base()}/recipe/userid/map`, {
      body: { superTokensUserId: recipe.id, externalUserId: `ext-${recipe.id}` },
    });
    await call('PUT', `${base()}/recipe/user/metadata`, {
      body: { userId: `ext-${recipe.id}`, metadataUpdate: { plan: 'gold' } },
    });
    const linked = await link(`ext-${recipe.id}`, primary.id);
    expect(linked.json.status).toBe('OK');
    expect(linked.json.user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toContain(
      `ext-${recipe.id}`,
    );
    expect((await getUser(`ext-${recipe.id}`)).user.id).toBe(primary.id);
    const metadata = await call('GET', `${base()}/recipe/user/metadata?userId=ext-${recipe.id}`);
    expect(metadata.json.metadata).toEqual({ plan: 'gold' });
    const unlinked = await unlink(`ext-${recipe.id}`);
    expect(unlinked.json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    const alone = (await getUser(`ext-${recipe.id}`)).user;
    expect(alone).toMatchObject({ id: `ext-${recipe.id}`, isPrimaryUser: false });
    const mapping = await call('GET', `${base()}/recipe/userid/map?userId=${recipe.id}&userIdType=SUPERTOKENS`);
    expect(mapping.json.externalUserId).toBe(`ext-${recipe.id}`);
  });

  it("answers the reference's messages for unknown ids and missing fields", async () => {
    const primary = await primaryOf(`${unique('m')}@example.com`);
    for (const res of [
      await canLink('no-such-user', primary.id),
      await link('no-such-user', primary.id),
      await canLink(primary.id, 'no-such-user'),
      await link(primary.id, 'no-such-user'),
    ]) {
      expect([res.status, res.text]).toEqual([400, 'Unknown user ID provided']);
    }
    const missing = await call('GET', `${base()}/recipe/accountlinking/user/link/check?recipeUserId=x`);
    expect(missing.text).toBe("Field name 'primaryUserId' is missing in GET request");
    const missingBody = await call('POST', `${base()}/recipe/accountlinking/user/link`, {
      body: { recipeUserId: 'x' },
    });
    expect(missingBody.text).toBe("Field name 'primaryUserId' is invalid in JSON input");
  });
});

describe('unlinking', () => {
  it('makes a linked recipe user standalone again and leaves the items as they were before the link', async () => {
    const email = `${unique('round')}@example.com`;
    const primary = await primaryOf(email);
    const recipe = await thirdParty(email);
    const snapshot = async () => {
      const items = await appItems(appId);
      return {
        keys: keysOf(items.filter((i) => !String(i.PK).includes('#UCOUNT#'))),
        counters: await count(),
      };
    };
    const start = await snapshot();
    const recipeBefore = (await getUser(recipe.id)).user;
    const primaryBefore = (await getUser(primary.id)).user;
    expect((await link(recipe.id, primary.id)).json.status).toBe('OK');
    const unlinked = await unlink(recipe.id);
    expect(unlinked.json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect((await getUser(recipe.id)).user).toEqual(recipeBefore);
    expect((await getUser(primary.id)).user).toEqual(primaryBefore);
    expect(await snapshot()).toEqual(start);
    // Not linked any more.
    expect((await unlink(recipe.id)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: false });
  });

  it("a primary user's own id: alone it stops being primary; with linked methods it is deleted and the group keeps the id", async () => {
    const solo = await primaryOf(`${unique('solo')}@example.com`);
    expect((await unlink(solo.id)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect((await getUser(solo.id)).user.isPrimaryUser).toBe(false);

    const email = `${unique('own')}@example.com`;
    const primary = await primaryOf(email);
    const recipe = await thirdParty(email);
    await link(recipe.id, primary.id);
    const res = await unlink(primary.id);
    expect(res.json).toEqual({ status: 'OK', wasRecipeUserDeleted: true, wasLinked: true });
    const group = (await getUser(primary.id)).user;
    expect(group).toMatchObject({ id: primary.id, isPrimaryUser: true });
    expect(group.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toEqual([recipe.id]);
    const signIn = await call('POST', `${base()}/public/recipe/signin`, { body: { email, password: PASSWORD } });
    expect(signIn.json.status).toBe('WRONG_CREDENTIALS_ERROR');
    // The group keeps the email (its Google method has it): nobody else becomes primary with it.
    const rival = await signUp(email);
    expect((await createPrimary(rival.id)).json.primaryUserId).toBe(primary.id);
  });

  it('answers 400 for an unknown id', async () => {
    const res = await unlink('no-such-user');
    expect([res.status, res.text]).toEqual([400, 'Unknown user ID provided']);
  });
});

describe('sessions', () => {
  const CDI = { 'cdi-version': '5.4' };
  async function session(userId: string) {
    const res = await call('POST', `${base()}/public/recipe/session`, {
      headers: CDI,
      body: { userId, userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false, useDynamicSigningKey: true },
    });
    expect(res.json?.status, res.text).toBe('OK');
    return res.json.session as { handle: string; userId: string; recipeUserId: string };
  }
  const alive = async (handle: string) =>
    (await call('GET', `${base()}/recipe/session?sessionHandle=${handle}`, { headers: CDI })).json.status === 'OK';

  it("a link ends the recipe user's sessions, an unlink ends the sessions made for it while linked; the group's others live", async () => {
    const email = `${unique('sess')}@example.com`;
    const primary = await primaryOf(email);
    const recipe = await thirdParty(email);
    const primarySession = await session(primary.id);
    const recipeSession = await session(recipe.id);
    expect((await link(recipe.id, primary.id)).json.status).toBe('OK');
    expect(await alive(recipeSession.handle)).toBe(false);
    expect(await alive(primarySession.handle)).toBe(true);
    // A session made for the linked recipe user belongs to the primary user.
    const linkedSession = await session(recipe.id);
    expect(linkedSession).toMatchObject({ userId: primary.id, recipeUserId: recipe.id });
    expect((await unlink(recipe.id)).json.wasLinked).toBe(true);
    expect(await alive(linkedSession.handle)).toBe(false);
    expect(await alive(primarySession.handle)).toBe(true);
  });
});

describe('users imported as linked', () => {
  it('read, link further methods into, and unlink from an imported primary user', async () => {
    const email = `${unique('imp')}@example.com`;
    const imported = await importUser(appId, {
      externalUserId: unique('auth0|imported'),
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email,
          passwordHash: HASH,
          hashingAlgorithm: 'BCRYPT',
          isPrimary: true,
          isVerified: true,
          timeJoinedInMSSinceEpoch: 1_500_000_000_000,
        },
        {
          recipeId: 'thirdparty',
          email,
          thirdPartyId: 'github',
          thirdPartyUserId: unique('gh'),
          isVerified: true,
          timeJoinedInMSSinceEpoch: 1_500_000_000_500,
        },
      ],
    });
    expect(imported.status, imported.text).toBe(200);
    const user = imported.json.user;
    const githubId = user.loginMethods[1].recipeUserId;
    expect((await getUser(githubId)).user).toEqual(user);
    expect((await canCreatePrimary(user.id)).json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: true });
    expect((await canCreatePrimary(githubId)).json.status).toBe(
      'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
    );
    // A new Google login with the same email links in.
    const google = await thirdParty(email);
    const linked = await link(google.id, user.id);
    expect(linked.json.status).toBe('OK');
    expect(linked.json.user.loginMethods).toHaveLength(3);
    expect(linked.json.user.timeJoined).toBe(1_500_000_000_000);
    // The imported GitHub method leaves the group and is a user of its own.
    expect((await unlink(githubId)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    const github = (await getUser(githubId)).user;
    expect(github).toMatchObject({ id: githubId, isPrimaryUser: false, timeJoined: 1_500_000_000_500 });
    const group = (await getUser(user.id)).user;
    expect(group.loginMethods).toHaveLength(2);
    // The imported password still signs in to the group.
    const signIn = await call('POST', `${base()}/public/recipe/signin`, { body: { email, password: 'correct horse' } });
    expect(signIn.json.user.id).toBe(user.id);
  });
});

describe('the app switch', () => {
  it('without account_linking_enabled: 402 to create a primary user or link; checks and unlink answer', async () => {
    const off = await createApp({}, [], 'aloff');
    const signUpOff = async (email: string) =>
      (await call('POST', `/appid-${off}/public/recipe/signup`, { body: { email, password: PASSWORD } })).json.user;
    const a = await signUpOff('a@example.com');
    const b = await signUpOff('b@example.com');
    const message = 'Account linking feature is not enabled for this app. Please contact support to enable it.';
    for (const res of [await createPrimary(a.id, off), await link(b.id, a.id, off)]) {
      expect([res.status, res.text]).toEqual([402, message]);
    }
    const unknown = await createPrimary('no-such-user', off);
    expect([unknown.status, unknown.text]).toEqual([400, 'Unknown user ID provided']);
    const check = await call('GET', `/appid-${off}/recipe/accountlinking/user/primary/check?recipeUserId=${a.id}`);
    expect(check.json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: false });
    const unlinkOff = await call('POST', `/appid-${off}/recipe/accountlinking/user/unlink`, {
      body: { recipeUserId: a.id },
    });
    expect(unlinkOff.json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: false });
    // mfa_enabled implies linking, as the reference's MFA feature does.
    const mfa = await createApp({ mfa_enabled: true }, [], 'almfa');
    const u = (
      await call('POST', `/appid-${mfa}/public/recipe/signup`, { body: { email: 'm@example.com', password: PASSWORD } })
    ).json.user;
    expect((await createPrimary(u.id, mfa)).json.status).toBe('OK');
  });
});
