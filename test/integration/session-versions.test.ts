/**
 * Access-token versions by the caller's CDI version, keys from an app's first JWKS read, and
 * tokens bound to their purpose and session (docs/sessions.md), at the handler level against
 * DynamoDB Local.
 */
import { createHash } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionSettings } from '#functions/config/index.js';
import { signAccessToken } from '#functions/domain/sessions/access-token.js';
import { KeyRing } from '#functions/domain/sessions/key-ring.js';
import { storedSigningKeyItems } from '#functions/storage/sessions/signing-key-store.js';
import { signingKeyStoreOf } from '#functions/wiring/sessions.js';
import { baseTable } from '#functions/wiring/tables.js';
import { call, createAppWith, uniqueAppId } from '../helpers/core-client.js';

const appId = uniqueAppId('vers');
const base = `/appid-${appId}`;
const at = (cdi: string) => ({ 'cdi-version': cdi });
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const V2_HEADER = 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsInZlcnNpb24iOiIyIn0=';

const payloadOf = (token: string): Record<string, any> =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64').toString('utf8'));

async function create(cdi: string, userDataInJWT: Record<string, unknown> = {}, tenant = 'public') {
  const reply = await call('POST', `${base}/${tenant}/recipe/session`, {
    headers: at(cdi),
    body: { userId: 'user-1', userDataInJWT, userDataInDatabase: {}, enableAntiCsrf: false },
  });
  return reply;
}

const verify = (accessToken: string, checkDatabase = false, cdi = '5.4') =>
  call('POST', `${base}/recipe/session/verify`, {
    headers: at(cdi),
    body: { accessToken, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase },
  });
const refresh = (refreshToken: string, cdi = '5.4') =>
  call('POST', `${base}/recipe/session/refresh`, {
    headers: at(cdi),
    body: { refreshToken, enableAntiCsrf: false, useDynamicSigningKey: true },
  });
const regenerate = (accessToken: string, userDataInJWT: Record<string, unknown> | undefined, cdi = '5.4') =>
  call('POST', `${base}/recipe/session/regenerate`, { headers: at(cdi), body: { accessToken, userDataInJWT } });

beforeAll(() => createAppWith(appId, {}, ['t1']));

describe('keys from the start', () => {
  it('a new app’s JWKS shows a dynamic and the static key before any session, and signs with them', async () => {
    const fresh = uniqueAppId('jwks');
    await createAppWith(fresh);
    const jwks = await call('GET', `/appid-${fresh}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    const kids = (jwks.json.keys as { kid: string }[]).map((k) => k.kid);
    expect(kids).toEqual([expect.stringMatching(/^d-\d+$/), expect.stringMatching(/^s-[0-9a-f-]{36}$/)]);
    expect(jwks.headers['cache-control']).toMatch(/^max-age=\d{5,}, must-revalidate$/);
    // The same keys through the API-key route, and the first session is signed with the dynamic one.
    const listed = await call('GET', `/appid-${fresh}/recipe/jwt/jwks`);
    expect(listed.json).toEqual({ status: 'OK', keys: jwks.json.keys });
    const session = await call('POST', `/appid-${fresh}/recipe/session`, {
      body: { userId: 'u', userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false },
    });
    expect(decodeProtectedHeader(session.json.accessToken.token).kid).toBe(kids[0]);
    // No refresh-token key yet from the JWKS read alone; one of each slot after the session.
    const items = await storedSigningKeyItems(baseTable, fresh);
    expect(items.map((i) => i.kind).sort()).toEqual(['dynamic', 'refresh', 'static']);
  });

  it('an unknown app gets no keys', async () => {
    const unknown = uniqueAppId('nobody');
    const reply = await call('GET', `/appid-${unknown}/.well-known/jwks.json`);
    expect(reply.status).toBe(400);
    expect(await storedSigningKeyItems(baseTable, unknown)).toEqual([]);
  });

  it('first JWKS reads of many execution environments at once make one key per slot', async () => {
    const raced = uniqueAppId('jwks-race');
    const settings: SessionSettings = {
      accessTokenValidityMs: 3_600_000,
      refreshTokenValidityMs: 86_400_000,
      accessTokenBlacklisting: false,
      signingKeyDynamic: true,
      dynamicKeyUpdateIntervalMs: 168 * 3_600_000,
    };
    const rings = Array.from({ length: 8 }, () => new KeyRing(signingKeyStoreOf(baseTable)));
    const shown = await Promise.all(rings.map((ring) => ring.jwksKeys(raced, settings)));
    expect(new Set(shown.map((keys) => keys.map((k) => k.kid).join()))).toHaveLength(1);
    const items = await storedSigningKeyItems(baseTable, raced);
    expect(items.map((i) => i.kind).sort()).toEqual(['dynamic', 'static']);
  });
});

describe('the version the caller’s CDI version implies', () => {
  it('CDI 2.18: a v2 token whose payload may hold sub; it verifies, and checkDatabase sees revocation', async () => {
    const created = await create('2.18', { sub: 'asdf' }, 't1');
    expect(created.status, created.text).toBe(200);
    const token = created.json.accessToken.token as string;
    expect(token.split('.')[0]).toBe(V2_HEADER);
    const payload = payloadOf(token);
    expect(Object.keys(payload)).toEqual([
      'userId',
      'expiryTime',
      'timeCreated',
      'sessionHandle',
      'refreshTokenHash1',
      'userData',
    ]);
    expect(payload).toMatchObject({ userId: 'user-1', userData: { sub: 'asdf' } });
    // Milliseconds, as the token says.
    expect(created.json.accessToken.expiry).toBe(payload.expiryTime);

    const verified = await verify(token);
    expect(verified.json).toEqual({
      status: 'OK',
      // A v2 token names no tenant: the reference reads it as the public tenant's.
      session: {
        handle: created.json.session.handle,
        userId: 'user-1',
        recipeUserId: 'user-1',
        userDataInJWT: { sub: 'asdf' },
        tenantId: 'public',
      },
    });
    await call('POST', `${base}/recipe/session/remove`, { body: { sessionHandles: [created.json.session.handle] } });
    expect((await verify(token, true)).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Either the session has ended or has been blacklisted',
    });
  });

  it('CDI 2.21: v3, where tId and rsub are the app’s own; CDI 3.0: v4 with tId and no rsub', async () => {
    const v3 = await create('2.21', { tId: 'mine', rsub: 'mine' });
    expect(v3.status, v3.text).toBe(200);
    expect(decodeProtectedHeader(v3.json.accessToken.token)).toMatchObject({ version: '3', purpose: 'session' });
    const v3Payload = payloadOf(v3.json.accessToken.token);
    expect(v3Payload).toMatchObject({ sub: 'user-1', tId: 'mine', rsub: 'mine' });
    expect((await verify(v3.json.accessToken.token)).json.session).toMatchObject({
      tenantId: 'public',
      userDataInJWT: { tId: 'mine', rsub: 'mine' },
    });

    const v4 = await create('3.0', { rsub: 'mine' }, 't1');
    expect(decodeProtectedHeader(v4.json.accessToken.token).version).toBe('4');
    expect(Object.keys(payloadOf(v4.json.accessToken.token)).sort()).toEqual(
      [
        'antiCsrfToken',
        'exp',
        'iat',
        'parentRefreshTokenHash1',
        'refreshTokenHash1',
        'rsub',
        'sessionHandle',
        'sub',
        'tId',
      ].sort(),
    );
    expect(payloadOf(v4.json.accessToken.token).tId).toBe('t1');
    const refused = await create('3.0', { tId: 'x' });
    expect([refused.status, refused.text]).toEqual([400, 'The user payload contains protected field']);
    const refusedV5 = await create('4.0', { rsub: 'x' });
    expect([refusedV5.status, refusedV5.text]).toEqual([400, 'The user payload contains protected field']);
  });

  it('a refresh answers the version of the refresh’s CDI version; a v2 session holding sub cannot become v5', async () => {
    const plain = (await create('2.18')).json;
    const refreshed = await refresh(plain.refreshToken.token);
    expect(refreshed.json.status).toBe('OK');
    expect(decodeProtectedHeader(refreshed.json.accessToken.token)).toMatchObject({
      version: '5',
      kid: expect.stringMatching(/^d-/),
    });
    expect(payloadOf(refreshed.json.accessToken.token)).toMatchObject({ sub: 'user-1', rsub: 'user-1', tId: 'public' });
    const again = await refresh(refreshed.json.refreshToken.token, '2.18');
    expect(again.json.accessToken.token.split('.')[0]).toBe(V2_HEADER);

    const withSub = (await create('2.18', { sub: 'asdf' })).json;
    expect((await refresh(withSub.refreshToken.token)).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'The user payload contains protected field',
    });
  });

  it('regenerate keeps the presented token’s version and expiry, and checks the payload against its claims', async () => {
    const created = (await create('2.18', { sub: 'asdf' })).json;
    const regenerated = await regenerate(created.accessToken.token, { appSub: 'asdf' });
    expect(regenerated.json.status, regenerated.text).toBe('OK');
    const token = regenerated.json.accessToken.token as string;
    expect(token.split('.')[0]).toBe(V2_HEADER);
    expect(payloadOf(token)).toMatchObject({ userData: { appSub: 'asdf' }, expiryTime: created.accessToken.expiry });
    // Now the session refreshes into v5.
    expect((await refresh(created.refreshToken.token)).json.status).toBe('OK');
    // A v2 token's own claims are refused from CDI 2.21 on, not below (the reference's rule).
    const own = await regenerate(token, { expiryTime: 1 });
    expect([own.status, own.text]).toEqual([400, 'The user payload contains protected field']);
    expect((await regenerate(token, { expiryTime: 1 }, '2.18')).json.status).toBe('OK');
  });

  it('PUT /recipe/jwt/data checks the claims of the version its CDI version implies, none below 2.21', async () => {
    const handle = (await create('5.4')).json.session.handle as string;
    const put = (cdi: string, userDataInJWT: Record<string, unknown>) =>
      call('PUT', `${base}/recipe/jwt/data`, { headers: at(cdi), body: { sessionHandle: handle, userDataInJWT } });
    expect((await put('2.18', { sub: 'x' })).json).toEqual({ status: 'OK' });
    expect((await put('3.0', { rsub: 'x' })).json).toEqual({ status: 'OK' });
    const refused = await put('5.4', { rsub: 'x' });
    expect([refused.status, refused.text]).toEqual([400, 'The user payload contains protected field']);
  });
});

describe('tokens bound to their purpose and session', () => {
  const NOT_THIS_SESSION = 'Not an access token issued for this session';
  /** A JWT of `POST /recipe/jwt` (dynamic key, as the SDK expects of a session token) with this payload. */
  async function mint(payload: Record<string, unknown>): Promise<string> {
    const minted = await call('POST', `${base}/recipe/jwt`, {
      body: {
        algorithm: 'RS256',
        jwksDomain: 'https://api.example.com',
        validity: 3600,
        useStaticSigningKey: false,
        payload,
      },
    });
    expect(minted.json.status).toBe('OK');
    return minted.json.jwt as string;
  }
  /** A session token's claims without `exp` and `iat` (the JWT recipe sets its own). */
  const sessionPayload = (token: string) => {
    const { exp: _exp, iat: _iat, ...rest } = payloadOf(token);
    return rest;
  };

  it('a JWT-recipe token carrying a live session handle is refused by verify and regenerate', async () => {
    const created = (await create('5.4', { role: 'reader' })).json;
    const claims = sessionPayload(created.accessToken.token);
    // Another user, and the session's current refresh token as the parent, as a refreshed token has.
    const promoting = await mint({
      ...claims,
      sub: 'someone-else',
      rsub: 'someone-else',
      parentRefreshTokenHash1: sha256(created.refreshToken.token),
      refreshTokenHash1: sha256('a child the caller made up'),
    });
    for (const checkDatabase of [true, false]) {
      expect((await verify(promoting, checkDatabase)).json).toEqual({
        status: 'TRY_REFRESH_TOKEN',
        message: NOT_THIS_SESSION,
      });
    }
    const impersonating = await mint({ ...claims, sub: 'someone-else', rsub: 'someone-else' });
    expect((await verify(impersonating, true)).json).toEqual({
      status: 'TRY_REFRESH_TOKEN',
      message: NOT_THIS_SESSION,
    });
    expect((await regenerate(impersonating, { role: 'admin' })).json).toEqual({
      status: 'UNAUTHORISED',
      message: NOT_THIS_SESSION,
    });
    // Nothing happened to the session: not promoted (its refresh token refreshes without theft), same payload.
    const info = await call('GET', `${base}/recipe/session?sessionHandle=${created.session.handle}`);
    expect(info.json.userDataInJWT).toEqual({ role: 'reader' });
    expect((await refresh(created.refreshToken.token)).json.status).toBe('OK');
  });

  it('the SDK’s custom access token (the session’s own claims, signed by the JWT recipe) verifies while its session lives, never re-issued', async () => {
    const created = (await create('5.4', { role: 'reader' }, 't1')).json;
    const custom = await mint(sessionPayload(created.accessToken.token));
    for (const checkDatabase of [true, false]) {
      expect((await verify(custom, checkDatabase)).json).toEqual({
        status: 'OK',
        session: {
          handle: created.session.handle,
          userId: 'user-1',
          recipeUserId: 'user-1',
          userDataInJWT: { role: 'reader', iss: 'https://api.example.com' },
          tenantId: 't1',
        },
      });
    }
    // Its payload differs from the session's (iss): still no new token from it; nor from regenerate.
    expect((await regenerate(custom, { role: 'admin' })).json).toEqual({
      status: 'UNAUTHORISED',
      message: NOT_THIS_SESSION,
    });
    // Another tenant in it is another session's token.
    const otherTenant = await mint({ ...sessionPayload(created.accessToken.token), tId: 'public' });
    expect((await verify(otherTenant, true)).json.message).toBe(NOT_THIS_SESSION);
    await call('POST', `${base}/recipe/session/remove`, { body: { sessionHandles: [created.session.handle] } });
    expect((await verify(custom, false)).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Either the session has ended or has been blacklisted',
    });
  });

  it('a re-issued token names the stored session’s user and tenant, whatever the presented token says', async () => {
    const created = (await create('5.4', {}, 't1')).json;
    const settings: SessionSettings = {
      accessTokenValidityMs: 3_600_000,
      refreshTokenValidityMs: 86_400_000,
      accessTokenBlacklisting: false,
      signingKeyDynamic: true,
      dynamicKeyUpdateIntervalMs: 168 * 3_600_000,
    };
    // A token signed with the app's own key whose ids differ from its session's (as only a bug or a
    // stolen private key could make): promotion re-issues it for the stored session.
    const key = await new KeyRing(signingKeyStoreOf(baseTable)).signingKey(appId, settings, false);
    const now = Date.now();
    const odd = await signAccessToken(
      {
        version: 5,
        sessionHandle: created.session.handle,
        userId: 'someone-else',
        recipeUserId: 'someone-else',
        tenantId: 'public',
        refreshTokenHash1: sha256('child'),
        parentRefreshTokenHash1: sha256(created.refreshToken.token),
        antiCsrfToken: null,
        expiry: now + 60_000,
        createdTime: now,
        userData: {},
      },
      key,
    );
    const promoted = await verify(odd);
    expect(promoted.json.status).toBe('OK');
    expect(payloadOf(promoted.json.accessToken.token)).toMatchObject({ sub: 'user-1', rsub: 'user-1', tId: 't1' });
    expect(promoted.json.session).toMatchObject({ userId: 'user-1', recipeUserId: 'user-1', tenantId: 't1' });
    const regenerated = await regenerate(odd, { role: 'x' });
    expect(payloadOf(regenerated.json.accessToken.token)).toMatchObject({ sub: 'user-1', rsub: 'user-1', tId: 't1' });
    expect(regenerated.json.session).toMatchObject({ userId: 'user-1', tenantId: 't1' });
  });
});
