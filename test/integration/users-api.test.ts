import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appItems, call, captureLogs, createApp, expectNoSecrets, importUser } from './users-support.js';

const logs = captureLogs();
const PASSWORD = 'users-api-pass-1';
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, [PASSWORD]);
});

let appId: string;
const base = () => `/appid-${appId}`;

/** 12 users: ep (public), tp (public+t1), pl (t1), plus a linked ep+tp primary in public+t1. */
beforeAll(async () => {
  appId = await createApp({ account_linking_enabled: true }, ['t1']);
  const imports: unknown[] = [];
  for (let i = 0; i < 4; i++) {
    imports.push({
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: `ep${i}@x.com`,
          plainTextPassword: PASSWORD,
          timeJoinedInMSSinceEpoch: 1000 + i,
        },
      ],
    });
    imports.push({
      loginMethods: [
        {
          recipeId: 'thirdparty',
          email: `shared${i}@x.com`,
          thirdPartyId: 'google',
          thirdPartyUserId: `g${i}`,
          tenantIds: ['public', 't1'],
          timeJoinedInMSSinceEpoch: 2000 + i,
        },
      ],
    });
    imports.push({
      loginMethods: [
        {
          recipeId: 'passwordless',
          phoneNumber: `+1415555010${i}`,
          tenantIds: ['t1'],
          timeJoinedInMSSinceEpoch: 3000 + i,
        },
      ],
    });
  }
  imports.push({
    externalUserId: 'linked-ext',
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email: 'shared0@x.com',
        plainTextPassword: PASSWORD,
        isPrimary: true,
        timeJoinedInMSSinceEpoch: 500,
      },
      {
        recipeId: 'thirdparty',
        email: 'shared0@x.com',
        thirdPartyId: 'github',
        thirdPartyUserId: 'gh0',
        tenantIds: ['public', 't1'],
        timeJoinedInMSSinceEpoch: 4000,
      },
    ],
  });
  for (const body of imports) {
    const res = await importUser(appId, body);
    expect(res.status, res.text).toBe(200);
  }
});

async function walk(tenant: string, order: 'ASC' | 'DESC', limit: number, extra = '') {
  const ids: string[] = [];
  const times: number[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const q = `timeJoinedOrder=${order}&limit=${limit}${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}${extra}`;
    const res = await call('GET', `${base()}/${tenant}/users?${q}`);
    expect(res.status, res.text).toBe(200);
    for (const u of res.json.users) {
      ids.push(u.id);
      times.push(u.timeJoined);
    }
    token = res.json.nextPaginationToken;
    pages++;
    expect(pages).toBeLessThan(50);
  } while (token);
  return { ids, times };
}

describe('GET /<t>/users', () => {
  it('lists plain user objects oldest first by default, newest first on request, with keyset pagination', async () => {
    const all = await call('GET', `${base()}/public/users`);
    expect(all.json.status).toBe('OK');
    expect(all.json.nextPaginationToken).toBeUndefined();
    const times = all.json.users.map((u: any) => u.timeJoined);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(all.json.users).toHaveLength(9); // 4 ep + 4 tp + 1 linked
    expect(all.json.users[0].id).toBe('linked-ext');
    for (const limit of [1, 2, 4, 9, 10]) {
      const asc = await walk('public', 'ASC', limit);
      const desc = await walk('public', 'DESC', limit);
      expect(asc.ids).toEqual(all.json.users.map((u: any) => u.id));
      expect(desc.ids).toEqual([...asc.ids].reverse());
      expect(new Set(asc.ids).size).toBe(9);
    }
  });

  it('filters by includeRecipeIds and validates parameters with the core messages', async () => {
    const tp = await walk('t1', 'DESC', 3, '&includeRecipeIds=thirdparty');
    expect(tp.ids).toHaveLength(5); // 4 tp + linked
    const pl = await call('GET', `${base()}/t1/users?includeRecipeIds=passwordless`);
    expect(pl.json.users).toHaveLength(4);
    const bad = [
      ['limit=0', 'limit must a positive integer with min value 1'],
      ['limit=501', 'max limit allowed is 500'],
      ['limit=abc', "Field name 'limit' must be an int in the GET request"],
      ['timeJoinedOrder=UP', 'timeJoinedOrder can be either ASC OR DESC'],
      ['paginationToken=nope!', 'invalid pagination token'],
      ['includeRecipeIds=emailpassword,sms', 'Unknown recipe ID: sms'],
    ];
    for (const [q, message] of bad) {
      const res = await call('GET', `${base()}/public/users?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.text).toBe(message);
    }
  });
});

describe('GET /<t>/users/count', () => {
  it('counts per tenant, per recipe, and across tenants without double counting', async () => {
    const count = async (path: string) => (await call('GET', `${base()}${path}`)).json.count;
    expect(await count('/public/users/count')).toBe(9);
    expect(await count('/t1/users/count')).toBe(9); // 4 tp + 4 pl + linked
    expect(await count('/public/users/count?includeRecipeIds=emailpassword')).toBe(5);
    expect(await count('/t1/users/count?includeRecipeIds=emailpassword,passwordless')).toBe(5);
    expect(await count('/public/users/count?includeAllTenants=true')).toBe(13);
    expect(await count('/public/users/count?includeAllTenants=true&includeRecipeIds=thirdparty')).toBe(5);
  });
});

describe('GET /<t>/users/by-accountinfo', () => {
  it('finds users by email, phone and third-party id; union or intersection', async () => {
    const q = async (tenant: string, query: string) =>
      (await call('GET', `${base()}/${tenant}/users/by-accountinfo?${query}`)).json;
    const byEmail = await q('public', 'email=%20Shared0@X.com&doUnionOfAccountInfo=false');
    expect(byEmail.users.map((u: any) => u.id).sort()).toHaveLength(2);
    const byPhone = await q('t1', `phoneNumber=${encodeURIComponent('+1 415-555-0102')}&doUnionOfAccountInfo=false`);
    expect(byPhone.users).toHaveLength(1);
    expect(byPhone.users[0].phoneNumbers).toEqual(['+14155550102']);
    expect(
      (await q('public', `phoneNumber=${encodeURIComponent('+14155550102')}&doUnionOfAccountInfo=false`)).users,
    ).toEqual([]);
    const tp = await q('public', 'thirdPartyId=github&thirdPartyUserId=gh0&doUnionOfAccountInfo=false');
    expect(tp.users.map((u: any) => u.id)).toEqual(['linked-ext']);
    const both = await q(
      'public',
      'email=shared0@x.com&thirdPartyId=github&thirdPartyUserId=gh0&doUnionOfAccountInfo=false',
    );
    expect(both.users.map((u: any) => u.id)).toEqual(['linked-ext']);
    const union = await q(
      'public',
      'email=ep1@x.com&thirdPartyId=github&thirdPartyUserId=gh0&doUnionOfAccountInfo=true',
    );
    expect(union.users).toHaveLength(2);
    const missing = await call('GET', `${base()}/public/users/by-accountinfo?email=a@b.com`);
    expect(missing.status).toBe(400);
    expect(missing.text).toBe("Field name 'doUnionOfAccountInfo' is missing in GET request");
    const half = await call('GET', `${base()}/public/users/by-accountinfo?thirdPartyId=x&doUnionOfAccountInfo=true`);
    expect(half.text).toBe("If 'thirdPartyId' is provided, 'thirdPartyUserId' must also be provided, and vice versa");
  });
});

describe('user by id, id mapping and removal', () => {
  it('GET /user/id resolves recipe, primary and external ids', async () => {
    const linked = (await call('GET', `${base()}/user/id?userId=linked-ext`)).json.user;
    expect(linked.isPrimaryUser).toBe(true);
    const tpMethod = linked.loginMethods.find((lm: any) => lm.recipeId === 'thirdparty');
    const viaRecipe = await call('GET', `${base()}/user/id?userId=${tpMethod.recipeUserId}`);
    expect(viaRecipe.json.user).toEqual(linked);
    const mapping = await call('GET', `${base()}/recipe/userid/map?userId=linked-ext&userIdType=EXTERNAL`);
    expect(mapping.json.status).toBe('OK');
    const viaPrimary = await call('GET', `${base()}/user/id?userId=${mapping.json.superTokensUserId}`);
    expect(viaPrimary.json.user).toEqual(linked);
    expect((await call('GET', `${base()}/user/id?userId=nobody`)).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    const missing = await call('GET', `${base()}/user/id`);
    expect(missing.status).toBe(400);
    expect(missing.text).toBe("Field name 'userId' is missing in GET request");
  });

  it('creates and reads user id mappings with the SDK statuses', async () => {
    const user = (await call('GET', `${base()}/t1/users?limit=1&includeRecipeIds=passwordless`)).json.users[0];
    const st = user.id;
    const create = (body: Record<string, unknown>) => call('POST', `${base()}/recipe/userid/map`, { body });
    expect((await create({ superTokensUserId: 'nope', externalUserId: 'e-x' })).json).toEqual({
      status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR',
    });
    expect((await create({ superTokensUserId: st, externalUserId: 'e-1', externalUserIdInfo: 'info' })).json).toEqual({
      status: 'OK',
    });
    // The external id is checked first: mapped to another user, so doesSuperTokensUserIdExist says
    // whether it is mapped to this very id (the reference's answer), though this id has one too.
    expect((await create({ superTokensUserId: st, externalUserId: 'linked-ext' })).json).toEqual({
      status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
      doesSuperTokensUserIdExist: false,
      doesExternalUserIdExist: true,
    });
    expect((await create({ superTokensUserId: st, externalUserId: 'e-1' })).json).toEqual({
      status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
      doesSuperTokensUserIdExist: true,
      doesExternalUserIdExist: true,
    });
    expect((await create({ superTokensUserId: st, externalUserId: 'e-new' })).json).toEqual({
      status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
      doesSuperTokensUserIdExist: true,
      doesExternalUserIdExist: false,
    });
    const get = (q: string) => call('GET', `${base()}/recipe/userid/map?${q}`);
    const expected = { status: 'OK', superTokensUserId: st, externalUserId: 'e-1', externalUserIdInfo: 'info' };
    expect((await get(`userId=${st}&userIdType=SUPERTOKENS`)).json).toEqual(expected);
    expect((await get('userId=e-1&userIdType=EXTERNAL')).json).toEqual(expected);
    expect((await get('userId=e-1')).json).toEqual(expected);
    expect((await get('userId=e-1&userIdType=SUPERTOKENS')).json).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
    expect((await get('userId=e-1&userIdType=OTHER')).text).toBe(
      "Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'",
    );
    expect((await call('GET', `${base()}/user/id?userId=e-1`)).json.user.id).toBe('e-1');
  });

  it('removes one linked login method, then the whole user, keeping counts exact', async () => {
    const count = async (path: string) => (await call('GET', `${base()}${path}`)).json.count;
    const before = await count('/public/users/count?includeAllTenants=true');
    const linked = (await call('GET', `${base()}/user/id?userId=linked-ext`)).json.user;
    const tp = linked.loginMethods.find((lm: any) => lm.recipeId === 'thirdparty');
    const removeOne = await call('POST', `${base()}/user/remove`, {
      body: { userId: tp.recipeUserId, removeAllLinkedAccounts: false },
    });
    expect(removeOne.json).toEqual({ status: 'OK' });
    const after = (await call('GET', `${base()}/user/id?userId=linked-ext`)).json.user;
    expect(after.loginMethods.map((lm: any) => lm.recipeId)).toEqual(['emailpassword']);
    expect(after.tenantIds).toEqual(['public']);
    expect((await call('GET', `${base()}/user/id?userId=${tp.recipeUserId}`)).json.status).toBe(
      'UNKNOWN_USER_ID_ERROR',
    );
    expect(await count('/t1/users/count?includeRecipeIds=thirdparty')).toBe(4);

    expect((await call('POST', `${base()}/user/remove`, { body: { userId: 'linked-ext' } })).json).toEqual({
      status: 'OK',
    });
    expect((await call('GET', `${base()}/user/id?userId=linked-ext`)).json.status).toBe('UNKNOWN_USER_ID_ERROR');
    expect((await call('GET', `${base()}/recipe/userid/map?userId=linked-ext`)).json.status).toBe(
      'UNKNOWN_MAPPING_ERROR',
    );
    expect(await count('/public/users/count?includeAllTenants=true')).toBe(before - 1);
    // The email is free again.
    const again = await importUser(appId, {
      loginMethods: [{ recipeId: 'emailpassword', email: 'shared0@x.com', plainTextPassword: PASSWORD }],
    });
    expect(again.status, again.text).toBe(200);
    expect((await call('POST', `${base()}/user/remove`, { body: { userId: 'never-existed' } })).json).toEqual({
      status: 'OK',
    });
  });

  it('deleting the app deletes every user item', async () => {
    expect((await appItems(appId)).length).toBeGreaterThan(0);
    const t1 = await call('POST', `${base()}/recipe/multitenancy/tenant/remove`, { body: { tenantId: 't1' } });
    expect(t1.json, t1.text).toEqual({ status: 'OK', didExist: true });
    const removed = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId } });
    expect(removed.json, removed.text).toEqual({ status: 'OK', didExist: true });
    expect(await appItems(appId)).toEqual([]);
  });
});
