/**
 * "An expired session is absent" on every route that reads a session (docs/sessions.md "Storage"):
 * a session whose refresh token has expired keeps its item until DynamoDB's TTL removes it (within
 * days), and meanwhile each route answers as the reference does for a session that is gone — and
 * neither changes nor revives the stored item. Each test ends a live session's life by moving its
 * stored expiry into the past (the TTL attribute stays ahead, so nothing removes the item).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { getItem, updateExpression, updateItem } from '#functions/storage/kit/index.js';
import { sessionEntity } from '#functions/storage/sessions/session-store.js';
import { baseTable } from '#functions/wiring/tables.js';
import { call, createAppWith, uniqueAppId } from '../helpers/core-client.js';

const appId = uniqueAppId('sess-exp');
const base = `/appid-${appId}`;
const CDI = { 'cdi-version': '5.4' };

const post = (path: string, body: unknown) => call('POST', `${base}${path}`, { body, headers: CDI });
const put = (path: string, body: unknown) => call('PUT', `${base}${path}`, { body, headers: CDI });
const get = (path: string) => call('GET', `${base}${path}`, { headers: CDI });

interface Created {
  session: { handle: string };
  accessToken: { token: string };
  refreshToken: { token: string };
}

async function create(userId: string): Promise<Created> {
  const reply = await post('/public/recipe/session', {
    userId,
    userDataInJWT: { role: 'reader' },
    userDataInDatabase: { cart: 3 },
    enableAntiCsrf: false,
    useDynamicSigningKey: true,
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.json;
}

const verify = (accessToken: string, checkDatabase: boolean) =>
  post('/recipe/session/verify', { accessToken, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase });

const refresh = (refreshToken: string) =>
  post('/recipe/session/refresh', { refreshToken, enableAntiCsrf: false, useDynamicSigningKey: true });

const storedItem = (handle: string) => getItem(baseTable, sessionEntity.key({ appId, handle }));

/** Ends the session a second ago, as its refresh token's expiry passing would; the item stays. */
async function expire(handle: string): Promise<void> {
  const { ok } = await updateItem(
    baseTable,
    sessionEntity.key({ appId, handle }),
    updateExpression({ expiresAtMs: Date.now() - 1000 }),
  );
  expect(ok).toBe(true);
  expect(await storedItem(handle)).toBeDefined();
}

const unauthorised = (message: string) => ({ status: 'UNAUTHORISED', message });

beforeAll(() => createAppWith(appId));

describe('an expired session is absent', () => {
  it('POST /recipe/session/verify with checkDatabase: UNAUTHORISED, while a token-only verify still answers OK', async () => {
    const created = await create('user-verify');
    expect((await verify(created.accessToken.token, true)).json.status).toBe('OK');
    await expire(created.session.handle);
    expect((await verify(created.accessToken.token, true)).json).toEqual(
      unauthorised('Either the session has ended or has been blacklisted'),
    );
    // Without checkDatabase the core reads no session (the access token alone decides), as in the reference.
    expect((await verify(created.accessToken.token, false)).json.status).toBe('OK');
  });

  it('POST /recipe/session/verify of a refreshed token: no promotion, UNAUTHORISED, the expiry is not extended', async () => {
    const created = await create('user-promote');
    const refreshed = (await refresh(created.refreshToken.token)).json;
    expect(refreshed.status).toBe('OK');
    await expire(created.session.handle);
    const before = await storedItem(created.session.handle);
    expect((await verify(refreshed.accessToken.token, false)).json).toEqual(unauthorised('Session missing in db'));
    expect(await storedItem(created.session.handle)).toEqual(before);
  });

  it('POST /recipe/session/verify of a custom access token (JWT recipe): UNAUTHORISED', async () => {
    const created = await create('user-custom');
    const claims = JSON.parse(Buffer.from(created.accessToken.token.split('.')[1] ?? '', 'base64url').toString('utf8'));
    const { exp: _exp, iat: _iat, ...payload } = claims;
    const jwt = await post('/recipe/jwt', {
      algorithm: 'RS256',
      jwksDomain: 'https://api.example.com',
      payload,
      validity: 3600,
      useStaticSigningKey: false,
    });
    expect(jwt.json.status).toBe('OK');
    expect((await verify(jwt.json.jwt, false)).json.status).toBe('OK');
    await expire(created.session.handle);
    expect((await verify(jwt.json.jwt, false)).json).toEqual(
      unauthorised('Either the session has ended or has been blacklisted'),
    );
  });

  it('POST /recipe/session/refresh: UNAUTHORISED, and no theft is reported', async () => {
    const created = await create('user-refresh');
    await expire(created.session.handle);
    expect((await refresh(created.refreshToken.token)).json).toEqual(
      unauthorised('Session missing in db or has expired'),
    );
    expect(await storedItem(created.session.handle)).toBeDefined();
  });

  it('POST /recipe/session/regenerate: UNAUTHORISED Session does not exist., the payload is not changed', async () => {
    const created = await create('user-regen');
    await expire(created.session.handle);
    const reply = await post('/recipe/session/regenerate', {
      accessToken: created.accessToken.token,
      userDataInJWT: { role: 'owner' },
    });
    expect(reply.json).toEqual(unauthorised('Session does not exist.'));
    expect(JSON.parse((await storedItem(created.session.handle))?.jwtJson as string)).toEqual({ role: 'reader' });
  });

  it('GET /recipe/session: UNAUTHORISED Session does not exist.', async () => {
    const created = await create('user-get');
    expect((await get(`/recipe/session?sessionHandle=${created.session.handle}`)).json.status).toBe('OK');
    await expire(created.session.handle);
    expect((await get(`/recipe/session?sessionHandle=${created.session.handle}`)).json).toEqual(
      unauthorised('Session does not exist.'),
    );
  });

  it('PUT /recipe/session/data and PUT /recipe/jwt/data: UNAUTHORISED Session does not exist., nothing written', async () => {
    const created = await create('user-data');
    const handle = created.session.handle;
    await expire(handle);
    expect(
      (await put('/recipe/session/data', { sessionHandle: handle, userDataInDatabase: { cart: 9 } })).json,
    ).toEqual(unauthorised('Session does not exist.'));
    expect((await put('/recipe/jwt/data', { sessionHandle: handle, userDataInJWT: { role: 'admin' } })).json).toEqual(
      unauthorised('Session does not exist.'),
    );
    const item = await storedItem(handle);
    expect([JSON.parse(item?.dataJson as string), JSON.parse(item?.jwtJson as string)]).toEqual([
      { cart: 3 },
      { role: 'reader' },
    ]);
  });

  it('GET /recipe/session/user and POST /recipe/session/remove by user: the expired session is not listed', async () => {
    const live = await create('user-list');
    const ended = await create('user-list');
    await expire(ended.session.handle);
    expect((await get('/recipe/session/user?userId=user-list')).json).toEqual({
      status: 'OK',
      sessionHandles: [live.session.handle],
    });
    expect((await post('/recipe/session/remove', { userId: 'user-list' })).json).toEqual({
      status: 'OK',
      sessionHandlesRevoked: [live.session.handle],
    });
  });
});
