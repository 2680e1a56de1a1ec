/**
 * `GET /<t>/users` with `email`, `phone` and `provider` (docs/users.md "Searching users") against
 * DynamoDB Local: the reference's matching over users signed up, imported one by one and imported
 * in bulk through the staging pipeline; linked users; the listing parameters a search keeps or
 * ignores; the search entries stored with the account-info items, following email changes and
 * removals; and what a search reads (its search partitions and the users found, however many
 * other users the tenant has).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { getDocumentClient } from '#functions/shared/clients.js';
import { storesOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import {
  call,
  createApp,
  importUser,
  readItem,
  readsOf,
  stage,
  startPipeline,
  useBulkTestFile,
  waitUntilDone,
} from './bulk-support.js';

const PASSWORD = 'users-search-pass-1';
const { pair } = useBulkTestFile([PASSWORD]);

let appId: string;
const base = () => `/appid-${appId}`;
/** Names (emails, phones, provider ids) → the ids the core answered for them. */
const ids = new Map<string, string>();

async function signUp(email: string, tenantId = 'public'): Promise<string> {
  const res = await call('POST', `${base()}/${tenantId}/recipe/signup`, { body: { email, password: PASSWORD } });
  expect(res.json.status, res.text).toBe('OK');
  return res.json.user.id as string;
}

async function imported(name: string, body: Record<string, unknown>): Promise<void> {
  const res = await importUser(appId, body);
  expect(res.status, res.text).toBe(200);
  ids.set(name, res.json.user.id);
}

async function search(query: string, tenantId = 'public') {
  const res = await call('GET', `${base()}/${tenantId}/users?${query}`);
  expect(res.status, res.text).toBe(200);
  expect(res.json.nextPaginationToken).toBeUndefined();
  return res.json.users as { id: string; timeJoined: number; emails: string[] }[];
}

const found = async (query: string, tenantId = 'public') => (await search(query, tenantId)).map((u) => u.id).sort();
const idsOf = (...names: string[]) => names.map((n) => ids.get(n) as string).sort();

beforeAll(async () => {
  appId = await createApp({ account_linking_enabled: true }, ['t1'], 'search');
  for (const email of ['john@gmail.com', 'test@supertokens.com', 'Test+1@SuperTokens.com', 'johndoe@testing.weird']) {
    ids.set(email.toLowerCase(), await signUp(email));
  }
  ids.set('other@t1.com', await signUp('other@t1.com', 't1'));
  await imported('+14155550100', {
    loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155550100', timeJoinedInMSSinceEpoch: 100 }],
  });
  await imported('both', {
    loginMethods: [
      { recipeId: 'passwordless', email: 'both@x.com', phoneNumber: '+447700900123', timeJoinedInMSSinceEpoch: 200 },
    ],
  });
  await imported('google-g1', {
    loginMethods: [
      {
        recipeId: 'thirdparty',
        thirdPartyId: 'google',
        thirdPartyUserId: 'G1-Abc',
        email: 'tp@thirdparty.io',
        timeJoinedInMSSinceEpoch: 300,
      },
    ],
  });
  await imported('github-gh1', {
    loginMethods: [
      {
        recipeId: 'thirdparty',
        thirdPartyId: 'github',
        thirdPartyUserId: 'gh1',
        email: 'john@github.dev',
        tenantIds: ['public', 't1'],
        timeJoinedInMSSinceEpoch: 400,
      },
    ],
  });
  await imported('linked', {
    externalUserId: 'linked-ext',
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email: 'primary@corp.com',
        plainTextPassword: PASSWORD,
        isPrimary: true,
        timeJoinedInMSSinceEpoch: 50,
      },
      {
        recipeId: 'thirdparty',
        thirdPartyId: 'google',
        thirdPartyUserId: 'g-linked',
        email: 'primary@corp.com',
        timeJoinedInMSSinceEpoch: 500,
      },
    ],
  });
});

describe('matching (the reference core’s arms)', () => {
  it('finds emails by their start or their domain’s start, case-insensitively, terms separated by ";"', async () => {
    expect(await found('email=john')).toEqual(idsOf('john@gmail.com', 'johndoe@testing.weird', 'github-gh1'));
    expect(await found('email=gmail')).toEqual(idsOf('john@gmail.com'));
    expect(await found('email=mail')).toEqual([]);
    expect(await found('email=T')).toEqual(
      idsOf('test@supertokens.com', 'test+1@supertokens.com', 'johndoe@testing.weird', 'google-g1'),
    );
    expect(await found(`email=${encodeURIComponent(' IRESH ; test+1 ;;')}`)).toEqual(idsOf('test+1@supertokens.com'));
    expect(await found('email=iresh')).toEqual([]);
  });

  it('finds phone numbers and providers by their start only', async () => {
    expect(await found(`phone=${encodeURIComponent('+1')}`)).toEqual(idsOf('+14155550100'));
    expect(await found(`phone=${encodeURIComponent('+44;+1415')}`)).toEqual(idsOf('+14155550100', 'both'));
    expect(await found('phone=1')).toEqual([]);
    expect(await found('provider=google')).toEqual(idsOf('google-g1', 'linked'));
    expect(await found('provider=GOOGLE%3A%3Ag1-a')).toEqual(idsOf('google-g1'));
    expect(await found('provider=oogle')).toEqual([]);
  });

  it('needs every field on the same login method', async () => {
    expect(await found('email=tp&provider=goo')).toEqual(idsOf('google-g1'));
    expect(await found('email=john&provider=google')).toEqual([]);
    expect(await found('email=both&phone=%2B44')).toEqual(idsOf('both'));
    expect(await found('email=test&phone=%2B44')).toEqual([]);
    expect(await found('provider=google&phone=1')).toEqual([]);
  });

  it('searches the tenant of the path only', async () => {
    expect(await found('email=john', 't1')).toEqual(idsOf('github-gh1'));
    expect(await found('email=other', 't1')).toEqual(idsOf('other@t1.com'));
    expect(await found('email=other')).toEqual([]);
  });

  it('answers a linked login method with its primary user, once, under its external id', async () => {
    const users = await search('email=primary&provider=google');
    expect(users.map((u) => u.id)).toEqual(['linked-ext']);
    expect(users[0]?.timeJoined).toBe(50);
    expect((await search('email=corp')).map((u) => u.id)).toEqual(['linked-ext']);
  });
});

describe('the listing parameters with a search', () => {
  it('orders by time joined as asked, ignores includeRecipeIds and the limit, and gives no token', async () => {
    const asc = await search('email=t;j');
    const times = asc.map((u) => u.timeJoined);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const desc = await search('email=t;j&timeJoinedOrder=DESC');
    expect(desc.map((u) => u.id)).toEqual(asc.map((u) => u.id).reverse());
    expect(await found('email=t;j&limit=1&includeRecipeIds=passwordless')).toEqual(asc.map((u) => u.id).sort());
    expect(await found('email=t;j&limit=600')).toHaveLength(asc.length);
  });

  it('still checks the other parameters with the core’s messages', async () => {
    const bad = [
      ['email=a&limit=0', 'limit must a positive integer with min value 1'],
      ['limit=501', 'max limit allowed is 500'],
      ['email=%20;%20&limit=501', 'max limit allowed is 500'],
      ['email=a&timeJoinedOrder=UP', 'timeJoinedOrder can be either ASC OR DESC'],
      ['email=a&paginationToken=nope!', 'invalid pagination token'],
      ['email=a&includeRecipeIds=sms', 'Unknown recipe ID: sms'],
      [
        `provider=${Array.from({ length: 101 }, (_, i) => `p${i}`).join(';')}`,
        "Field name 'provider' can have at most 100 search terms",
      ],
    ];
    for (const [q, message] of bad) {
      const res = await call('GET', `${base()}/public/users?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.text, q).toBe(message);
    }
  });
});

describe('what is stored and read', () => {
  it('keeps the search entries on the account-info items, following a changed email and a removal', async () => {
    const id = await signUp('Mover@Old.org');
    const item = await readItem({ PK: `APP#${appId}#T#public#EMAIL#mover@old.org`, SK: 'UNIQUE#emailpassword' });
    expect(item).toMatchObject({
      GSI1PK: `APP#${appId}#T#public#SEARCH#EMAIL#m`,
      GSI1SK: 'mover@old.org',
      GSI2PK: `APP#${appId}#T#public#SEARCH#DOMAIN#o`,
      GSI2SK: 'old.org',
    });
    expect(await found('email=mover')).toEqual([id]);
    const put = await call('PUT', `${base()}/recipe/user`, { body: { recipeUserId: id, email: 'shaker@new.org' } });
    expect(put.json, put.text).toEqual({ status: 'OK' });
    expect(await found('email=mover')).toEqual([]);
    expect(await found('email=old.org')).toEqual([]);
    expect(await found('email=new.org')).toEqual([id]);
    expect((await call('POST', `${base()}/user/remove`, { body: { userId: id } })).json.status).toBe('OK');
    expect(await found('email=shaker')).toEqual([]);
  });

  it('reads the search partitions of its terms and the users found, not the tenant’s other users', async () => {
    const filler = Array.from({ length: 60 }, (_, n) => ({
      loginMethods: [{ recipeId: 'emailpassword', email: `filler${n}@bulk.example`, plainTextPassword: PASSWORD }],
    }));
    for (const body of filler) expect((await importUser(appId, body)).status).toBe(200);
    // Besides the request's read of its app and tenant (every request makes it):
    const reads = (await readsOf(() => found('email=johnd'))).filter((r) => r.command !== 'GetItem');
    const queries = reads.filter((r) => r.command === 'Query').map((r) => r.partitions[0]);
    expect(queries.sort()).toEqual([
      `GSI1:APP#${appId}#T#public#SEARCH#EMAIL#j`,
      `GSI2:APP#${appId}#T#public#SEARCH#DOMAIN#j`,
    ]);
    const users = reads.filter((r) => r.command === 'BatchGetItem').flatMap((r) => r.partitions);
    expect(users).toEqual([`APP#${appId}#U#${ids.get('johndoe@testing.weird')}`]);
    expect(reads.every((r) => r.command !== 'Scan')).toBe(true);
    expect(reads).toHaveLength(3);
    // Two eventually consistent queries (0.5 each) and one user (0.5), whatever the tenant holds.
    expect(reads.reduce((sum, r) => sum + r.readUnits, 0)).toBe(1.5);
  });

  it('stops reading the index at twice as many entries as users it may answer', async () => {
    // 12 users, each found twice by `zz`: by its email (zz…) and by its domain (zz.example).
    for (let n = 0; n < 12; n++) {
      const body = {
        loginMethods: [{ recipeId: 'emailpassword', email: `zz${n}@zz.example`, plainTextPassword: PASSWORD }],
      };
      expect((await importUser(appId, body)).status).toBe(200);
    }
    const store = storesOf(baseTable).users;
    const search = (limit: number) => store.searchUsers(appId, 'public', { field: 'email', terms: ['zz'], limit });
    const all = await search(1000);
    expect(all).toHaveLength(12);
    // The entries each Query returned, counted on the client the store uses.
    const client = getDocumentClient();
    const counts: number[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        if (context.commandName === 'QueryCommand') counts.push((out.output as { Count?: number }).Count ?? 0);
        return out;
      },
      { step: 'initialize', name: 'searchEntryCount' },
    );
    try {
      expect(await search(4)).toHaveLength(4);
    } finally {
      client.middlewareStack.remove('searchEntryCount');
    }
    expect(counts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(8);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(4);
  });

  it('finds users imported in bulk through staging, the import worker and the DLQ consumer', async () => {
    const users: unknown[] = ['ada', 'grace', 'edsger'].map((name) => ({
      loginMethods: [{ recipeId: 'emailpassword', email: `${name}@staged.example`, plainTextPassword: PASSWORD }],
    }));
    users.push({ loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+33612345678' }] });
    const staged = await stage(appId, users);
    expect(staged.status, staged.text).toBe(200);
    const pipeline = await startPipeline(pair());
    try {
      await waitUntilDone(appId);
    } finally {
      await pipeline.stop();
    }
    expect(await search('email=staged.example')).toHaveLength(3);
    expect((await search('email=grace'))[0]?.emails).toEqual(['grace@staged.example']);
    expect(await search('phone=%2B336')).toHaveLength(1);
  });
});
