/**
 * The rules of third-party sign-in-up and account linking are held by the write, not by the reads
 * before it: here the reads are made stale on purpose (the users store answers as if a concurrent
 * request had not committed yet), against DynamoDB Local, and the write must still refuse what
 * the rules forbid — then the next round of reads gives the reference's answer.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPrimaryUser, type LinkingDeps, linkAccounts } from '#functions/domain/accountlinking/service.js';
import { thirdPartySignInUp } from '#functions/domain/thirdparty/service.js';
import type { UserStore } from '#functions/domain/users/ports.js';
import { createSessionStore } from '#functions/storage/sessions/session-store.js';
import { storesOf, tenantStore } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { call, createApp } from './users-support.js';

let appId: string;
const real = () => storesOf(baseTable).users;

/** A users store whose first `staleCalls` answers of `method` are what they were before anything was written. */
function staleStore(
  method: 'primaryUsersHolding' | 'usersByAccountInfo',
  staleCalls = 1,
): { store: UserStore; commits: () => number } {
  const store = real();
  let calls = 0;
  let commits = 0;
  const wrapped: UserStore = {
    ...store,
    commit: async (write) => {
      commits++;
      return store.commit(write);
    },
    primaryUsersHolding: async (app, infos) =>
      method === 'primaryUsersHolding' && calls++ < staleCalls
        ? infos.map(() => undefined)
        : store.primaryUsersHolding(app, infos),
    usersByAccountInfo: async (app, tenantId, query) =>
      method === 'usersByAccountInfo' && calls++ < staleCalls ? [[]] : store.usersByAccountInfo(app, tenantId, query),
  };
  return { store: wrapped, commits: () => commits };
}

const deps = (store: UserStore): LinkingDeps => ({
  store,
  now: Date.now,
  newId: randomUUID,
  sessions: createSessionStore(baseTable),
});

async function user(path: string, body: unknown) {
  const res = await call('POST', `/appid-${appId}/public${path}`, { body });
  expect(res.json?.status, res.text).toBe('OK');
  return res.json.user as { id: string };
}
const signUp = (email: string) => user('/recipe/signup', { email, password: 'races-pass-1' });
const google = (email: string, uid = randomUUID()) =>
  user('/recipe/signinup', { thirdPartyId: 'google', thirdPartyUserId: uid, email: { id: email, isVerified: true } });

async function primary(email: string) {
  const u = await signUp(email);
  const made = await call('POST', `/appid-${appId}/recipe/accountlinking/user/primary`, {
    body: { recipeUserId: u.id },
  });
  expect(made.json.status).toBe('OK');
  return u;
}

beforeAll(async () => {
  appId = await createApp({ account_linking_enabled: true }, [], 'races');
});

describe('stale reads meet the write', () => {
  it("a link whose check missed the other primary user's reservation is refused by the transaction", async () => {
    const email = `held-${randomUUID()}@example.com`;
    const holder = await primary(email);
    const target = await primary(`target-${randomUUID()}@example.com`);
    const recipe = await google(email);
    const { store, commits } = staleStore('primaryUsersHolding');
    const answer = await linkAccounts(
      deps(store),
      { appId, linkingEnabled: true },
      { recipeUserId: recipe.id, primaryUserId: target.id },
    );
    expect(commits()).toBe(1); // the stale round wrote nothing: its transaction was cancelled
    expect(answer).toEqual({
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: holder.id,
      description: "This user's email is already associated with another user ID",
    });
    const after = await call('GET', `/appid-${appId}/user/id?userId=${recipe.id}`);
    expect(after.json.user).toMatchObject({ id: recipe.id, isPrimaryUser: false });
  });

  it('a primary user whose check missed the reservation is refused by the transaction', async () => {
    const email = `held2-${randomUUID()}@example.com`;
    const holder = await primary(email);
    const recipe = await google(email);
    const { store, commits } = staleStore('primaryUsersHolding');
    const answer = await createPrimaryUser(deps(store), { appId, linkingEnabled: true }, recipe.id);
    expect(commits()).toBe(1);
    expect(answer).toMatchObject({
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: holder.id,
    });
  });

  it('a sign-in-up that did not see the login created a moment ago finds it instead of creating a second user', async () => {
    const uid = randomUUID();
    const first = await google(`tp-${uid}@example.com`, uid);
    const { store, commits } = staleStore('usersByAccountInfo');
    const answer = await thirdPartySignInUp(
      deps(store),
      { appId, tenantId: 'public', tenant: (await tenantStore.getTenant(appId, 'public'))!, cdiVersion: '5.4' },
      { thirdPartyId: 'google', thirdPartyUserId: uid, email: `tp-${uid}@example.com`, isVerified: true },
    );
    expect(commits()).toBe(1);
    expect(answer).toMatchObject({ status: 'OK', createdNewUser: false, recipeUserId: first.id });
  });
});
