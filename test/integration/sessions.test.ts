/**
 * Session routes at the handler level (docs/sessions.md): answers, statuses and messages of the
 * reference core, refresh-token rotation with its grace and theft detection, promotion by verify,
 * key kinds, and what is stored (hashes only, sealed private keys).
 */
import { createPublicKey } from 'node:crypto';
import fc from 'fast-check';
import { compactVerify, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { getItem } from '#functions/storage/kit/index.js';
import { sessionEntity } from '#functions/storage/sessions/session-store.js';
import { storedSigningKeyItems } from '#functions/storage/sessions/signing-key-store.js';
import { baseTable } from '#functions/wiring/tables.js';
import { type CoreReply, call, createAppWith, uniqueAppId } from '../helpers/core-client.js';

const appId = uniqueAppId('sess');
const base = `/appid-${appId}`;
const CDI = { 'cdi-version': '5.4' };

const post = (path: string, body: unknown) => call('POST', `${base}${path}`, { body, headers: CDI });
const put = (path: string, body: unknown) => call('PUT', `${base}${path}`, { body, headers: CDI });
const get = (path: string) => call('GET', `${base}${path}`, { headers: CDI });

function payloadOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

async function create(userId = 'user-1', extra: Record<string, unknown> = {}, tenant = 'public'): Promise<CoreReply> {
  const reply = await call('POST', `${base}/${tenant}/recipe/session`, {
    headers: CDI,
    body: {
      userId,
      userDataInJWT: { role: 'reader' },
      userDataInDatabase: { cart: 3 },
      enableAntiCsrf: false,
      useDynamicSigningKey: true,
      ...extra,
    },
  });
  expect(reply.status, reply.text).toBe(200);
  return reply;
}

const verify = (accessToken: string, extra: Record<string, unknown> = {}) =>
  post('/recipe/session/verify', {
    accessToken,
    doAntiCsrfCheck: false,
    enableAntiCsrf: false,
    checkDatabase: false,
    ...extra,
  });

const refresh = (refreshToken: string, extra: Record<string, unknown> = {}) =>
  post('/recipe/session/refresh', { refreshToken, enableAntiCsrf: false, useDynamicSigningKey: true, ...extra });

beforeAll(() => createAppWith(appId, {}, ['t1']));

describe('POST /recipe/session', () => {
  it('answers the session with a v5 access token, an opaque refresh token, and stores only a hash', async () => {
    const reply = await create();
    const { session, accessToken, refreshToken } = reply.json;
    expect(reply.json.status).toBe('OK');
    expect(session).toEqual({
      handle: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userId: 'user-1',
      recipeUserId: 'user-1',
      userDataInJWT: { role: 'reader' },
      tenantId: 'public',
    });
    expect(reply.json).not.toHaveProperty('antiCsrfToken');
    const header = decodeProtectedHeader(accessToken.token);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT', version: '5', kid: expect.stringMatching(/^d-\d+$/) });
    const claims = payloadOf(accessToken.token);
    expect(claims).toMatchObject({
      sub: 'user-1',
      rsub: 'user-1',
      tId: 'public',
      sessionHandle: session.handle,
      parentRefreshTokenHash1: null,
      antiCsrfToken: null,
      role: 'reader',
    });
    expect(claims.exp).toBe(Math.floor(accessToken.expiry / 1000));
    expect(accessToken.expiry % 1000).toBe(0);
    expect(accessToken.expiry - accessToken.createdTime).toBe(3600_000);
    expect(refreshToken.expiry - refreshToken.createdTime).toBe(144000 * 60_000);

    const item = await getItem(baseTable, sessionEntity.key({ appId, handle: session.handle }));
    const raw = JSON.stringify(item);
    expect(raw).not.toContain(refreshToken.token);
    expect(raw).not.toContain(accessToken.token);
    expect(JSON.stringify(item).length).toBeLessThan(1024);
  });

  it('verifies against the JWKS the SDK fetches without an API key or a cdi-version header', async () => {
    const reply = await create();
    const jwks = await call('GET', `${base}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.headers['cache-control']).toMatch(/^max-age=\d+, must-revalidate$/);
    const kid = decodeProtectedHeader(reply.json.accessToken.token).kid;
    const jwk = jwks.json.keys.find((k: { kid: string }) => k.kid === kid);
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(Object.keys(jwk)).toEqual(['kty', 'kid', 'n', 'e', 'alg', 'use']);
    await compactVerify(reply.json.accessToken.token, createPublicKey({ key: jwk, format: 'jwk' }));
    const withStatus = await get('/recipe/jwt/jwks');
    expect(withStatus.json).toEqual({ keys: jwks.json.keys, status: 'OK' });
  });

  it('adds an anti-CSRF token when asked, and a tenant suffix to the handle', async () => {
    const reply = await create('user-2', { enableAntiCsrf: true }, 't1');
    expect(reply.json.antiCsrfToken).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.json.session.handle).toMatch(/_t1$/);
    expect(payloadOf(reply.json.accessToken.token)).toMatchObject({
      antiCsrfToken: reply.json.antiCsrfToken,
      tId: 't1',
    });
  });

  it('signs with the static key when useDynamicSigningKey is false', async () => {
    const reply = await create('user-3', { useDynamicSigningKey: false });
    expect(decodeProtectedHeader(reply.json.accessToken.token).kid).toMatch(/^s-[0-9a-f-]{36}$/);
  });

  it('refuses a payload with a protected claim and bad fields with the reference messages', async () => {
    const protectedClaim = await post('/recipe/session', {
      userId: 'u',
      userDataInJWT: { sub: 'x' },
      userDataInDatabase: {},
      enableAntiCsrf: false,
    });
    expect([protectedClaim.status, protectedClaim.text]).toEqual([400, 'The user payload contains protected field']);
    const missing = await post('/recipe/session', { userId: 'u', userDataInJWT: {}, userDataInDatabase: {} });
    expect([missing.status, missing.text]).toEqual([400, "Field name 'enableAntiCsrf' is invalid in JSON input"]);
    const unknownTenant = await call('POST', `${base}/nope/recipe/session`, {
      headers: CDI,
      body: { userId: 'u', userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false },
    });
    expect(unknownTenant.status).toBe(400);
    expect(unknownTenant.text).toMatch(/^AppId or tenantId not found/);
  });
});

describe('refresh, promotion and theft detection', () => {
  it('follows the reference: grace for the parent until the child is used, then theft', async () => {
    const created = (await create('user-r')).json;
    const first = await refresh(created.refreshToken.token);
    expect(first.json.status).toBe('OK');
    const child = first.json.refreshToken.token as string;
    expect(child).not.toBe(created.refreshToken.token);
    expect(payloadOf(first.json.accessToken.token).parentRefreshTokenHash1).toEqual(expect.any(String));

    // Concurrent refreshes with the parent: still the current token, no theft.
    const again = await refresh(created.refreshToken.token);
    expect(again.json.status).toBe('OK');

    // The child's access token is verified: the session is promoted and a new access token answered.
    const verified = await verify(first.json.accessToken.token);
    expect(verified.json.status).toBe('OK');
    expect(verified.json.accessToken.token).toEqual(expect.any(String));
    expect(payloadOf(verified.json.accessToken.token).parentRefreshTokenHash1).toBeNull();
    // A token without a parent hash is answered without a new token.
    const plain = await verify(verified.json.accessToken.token);
    expect(plain.json).toEqual({ status: 'OK', session: expect.objectContaining({ handle: created.session.handle }) });
    expect(plain.json).not.toHaveProperty('accessToken');

    // The parent now is a replay: theft, the session is revoked.
    const theft = await refresh(created.refreshToken.token);
    expect(theft.json).toEqual({
      status: 'TOKEN_THEFT_DETECTED',
      session: { handle: created.session.handle, userId: 'user-r', recipeUserId: 'user-r' },
    });
    const afterwards = await refresh(child);
    expect(afterwards.json).toEqual({ status: 'UNAUTHORISED', message: 'Session missing in db or has expired' });
  });

  it('promotes the session when the child refresh token itself is used', async () => {
    const created = (await create('user-c')).json;
    const first = (await refresh(created.refreshToken.token)).json;
    const second = await refresh(first.refreshToken.token);
    expect(second.json.status).toBe('OK');
    const theft = await refresh(created.refreshToken.token);
    expect(theft.json.status).toBe('TOKEN_THEFT_DETECTED');
  });

  it('checks the anti-CSRF token the refresh token carries', async () => {
    const created = (await create('user-a', { enableAntiCsrf: true })).json;
    const wrong = await refresh(created.refreshToken.token, { enableAntiCsrf: true, antiCsrfToken: 'nope' });
    expect(wrong.json).toEqual({ status: 'UNAUTHORISED', message: 'Anti CSRF token missing, or not matching' });
    const right = await refresh(created.refreshToken.token, {
      enableAntiCsrf: true,
      antiCsrfToken: created.antiCsrfToken,
    });
    expect(right.json.status).toBe('OK');
    expect(right.json.antiCsrfToken).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a refresh token that is not one of this app', async () => {
    const reply = await refresh('v1.garbage');
    expect(reply.json).toEqual({ status: 'UNAUTHORISED', message: 'Invalid refresh token' });
    const other = uniqueAppId('sess-other');
    await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId: other } });
    const created = (await create('user-x')).json;
    const foreign = await call('POST', `/appid-${other}/recipe/session/refresh`, {
      headers: CDI,
      body: { refreshToken: created.refreshToken.token, enableAntiCsrf: false, useDynamicSigningKey: true },
    });
    expect(foreign.json).toEqual({ status: 'UNAUTHORISED', message: 'Invalid refresh token' });
    const foreignVerify = await call('POST', `/appid-${other}/recipe/session/verify`, {
      headers: CDI,
      body: {
        accessToken: created.accessToken.token,
        doAntiCsrfCheck: false,
        enableAntiCsrf: false,
        checkDatabase: false,
      },
    });
    expect(foreignVerify.json).toEqual({ status: 'TRY_REFRESH_TOKEN', message: 'Key not found' });
  });
});

describe('verify', () => {
  it('answers TRY_REFRESH_TOKEN for a tampered token, a failed anti-CSRF check, and UNAUTHORISED for a revoked session with checkDatabase', async () => {
    const created = (await create('user-v', { enableAntiCsrf: true })).json;
    const [h, , s] = created.accessToken.token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payloadOf(created.accessToken.token), sub: 'admin' })).toString('base64url')}.${s}`;
    expect((await verify(forged)).json).toEqual({ status: 'TRY_REFRESH_TOKEN', message: 'JWT verification failed' });
    expect((await verify('not-a-jwt')).json).toEqual({ status: 'TRY_REFRESH_TOKEN', message: 'Invalid JWT' });
    const csrf = await verify(created.accessToken.token, {
      doAntiCsrfCheck: true,
      enableAntiCsrf: true,
      antiCsrfToken: 'x',
    });
    expect(csrf.json).toEqual({ status: 'TRY_REFRESH_TOKEN', message: 'anti-csrf check failed' });

    const removed = await post('/recipe/session/remove', { sessionHandles: [created.session.handle] });
    expect(removed.json).toEqual({ status: 'OK', sessionHandlesRevoked: [created.session.handle] });
    expect((await verify(created.accessToken.token)).json.status).toBe('OK');
    expect((await verify(created.accessToken.token, { checkDatabase: true })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Either the session has ended or has been blacklisted',
    });
  });
});

describe('session data, payload, regenerate, lists and revocation', () => {
  it('reads and updates a session; regenerate keeps the expiry', async () => {
    const created = (await create('user-d')).json;
    const handle = created.session.handle as string;
    const info = await get(`/recipe/session?sessionHandle=${handle}`);
    expect(info.json).toEqual({
      status: 'OK',
      sessionHandle: handle,
      userId: 'user-d',
      recipeUserId: 'user-d',
      userDataInDatabase: { cart: 3 },
      expiry: created.refreshToken.expiry,
      userDataInJWT: { role: 'reader' },
      timeCreated: created.refreshToken.createdTime,
      useStaticKey: false,
      tenantId: 'public',
    });
    expect(
      (await put('/recipe/session/data', { sessionHandle: handle, userDataInDatabase: { cart: 4 } })).json,
    ).toEqual({
      status: 'OK',
    });
    expect((await put('/recipe/jwt/data', { sessionHandle: handle, userDataInJWT: { role: 'admin' } })).json).toEqual({
      status: 'OK',
    });
    const updated = (await get(`/recipe/session?sessionHandle=${handle}`)).json;
    expect([updated.userDataInDatabase, updated.userDataInJWT]).toEqual([{ cart: 4 }, { role: 'admin' }]);
    const protectedClaim = await put('/recipe/jwt/data', { sessionHandle: handle, userDataInJWT: { exp: 1 } });
    expect([protectedClaim.status, protectedClaim.text]).toEqual([400, 'The user payload contains protected field']);

    const regenerated = await post('/recipe/session/regenerate', {
      accessToken: created.accessToken.token,
      userDataInJWT: { role: 'owner' },
    });
    expect(regenerated.json.status).toBe('OK');
    expect(regenerated.json.session.userDataInJWT).toEqual({ role: 'owner' });
    expect(regenerated.json.accessToken.expiry).toBe(created.accessToken.expiry);
    expect(payloadOf(regenerated.json.accessToken.token)).toMatchObject({
      role: 'owner',
      exp: Math.floor(created.accessToken.expiry / 1000),
    });

    for (const unknown of ['nope', 'x'.repeat(500)]) {
      expect((await get(`/recipe/session?sessionHandle=${unknown}`)).json).toEqual({
        status: 'UNAUTHORISED',
        message: 'Session does not exist.',
      });
      expect((await put('/recipe/session/data', { sessionHandle: unknown, userDataInDatabase: {} })).json).toEqual({
        status: 'UNAUTHORISED',
        message: 'Session does not exist.',
      });
    }
    const missing = await get('/recipe/session');
    expect([missing.status, missing.text]).toEqual([400, "Field name 'sessionHandle' is missing in GET request"]);
  });

  it('lists and revokes a user’s sessions per tenant or across tenants', async () => {
    const a = (await create('user-l')).json.session.handle;
    const b = (await create('user-l', {}, 't1')).json.session.handle;
    const all = await get('/recipe/session/user?userId=user-l');
    expect(new Set(all.json.sessionHandles)).toEqual(new Set([a, b]));
    const t1 = await call('GET', `${base}/t1/recipe/session/user?userId=user-l&fetchAcrossAllTenants=false`, {
      headers: CDI,
    });
    expect(t1.json).toEqual({ status: 'OK', sessionHandles: [b] });

    const onlyT1 = await call('POST', `${base}/t1/recipe/session/remove`, {
      headers: CDI,
      body: { userId: 'user-l', revokeAcrossAllTenants: false },
    });
    expect(onlyT1.json).toEqual({ status: 'OK', sessionHandlesRevoked: [b] });
    const rest = await post('/recipe/session/remove', { userId: 'user-l' });
    expect(rest.json).toEqual({ status: 'OK', sessionHandlesRevoked: [a] });
    expect((await get('/recipe/session/user?userId=user-l')).json).toEqual({ status: 'OK', sessionHandles: [] });
  });

  it('refuses ambiguous removal requests with the reference messages', async () => {
    const both = await post('/recipe/session/remove', { userId: 'u', sessionHandles: [] });
    expect([both.status, both.text]).toEqual([400, 'Invalid JSON input - use one of userId or sessionHandles array']);
    const across = await post('/recipe/session/remove', { sessionHandles: ['h'], revokeAcrossAllTenants: true });
    expect([across.status, across.text]).toEqual([
      400,
      'Invalid JSON input - revokeAcrossAllTenants can only be set if userId is set',
    ]);
  });
});

describe('POST /recipe/jwt', () => {
  it('signs with the static key by default, with iss, iat and exp', async () => {
    const reply = await post('/recipe/jwt', {
      algorithm: 'rs256',
      jwksDomain: 'https://api.example.com',
      payload: { a: 1 },
      validity: 60,
    });
    expect(reply.json.status).toBe('OK');
    expect(decodeProtectedHeader(reply.json.jwt)).toMatchObject({
      alg: 'RS256',
      typ: 'JWT',
      kid: expect.stringMatching(/^s-/),
    });
    const claims = payloadOf(reply.json.jwt);
    expect(claims).toMatchObject({ a: 1, iss: 'https://api.example.com' });
    expect((claims.exp as number) - (claims.iat as number)).toBe(60);
    expect(
      (await post('/recipe/jwt', { algorithm: 'HS256', jwksDomain: 'x', payload: {}, validity: 60 })).json,
    ).toEqual({
      status: 'UNSUPPORTED_ALGORITHM_ERROR',
    });
    const zero = await post('/recipe/jwt', { algorithm: 'RS256', jwksDomain: 'x', payload: {}, validity: 0 });
    expect([zero.status, zero.text]).toEqual([400, 'validity must be greater than or equal to 0']);
  });
});

describe('keys at rest', () => {
  it('keeps private parts only sealed', async () => {
    await create('user-k');
    const items = await storedSigningKeyItems(baseTable, appId);
    expect(items.map((i) => i.kind).sort()).toEqual(expect.arrayContaining(['dynamic', 'refresh', 'static']));
    for (const item of items) {
      const text = JSON.stringify(item);
      expect(text).not.toMatch(/PRIVATE KEY|"d":/);
      expect(item.sealed).toBeInstanceOf(Uint8Array);
      // A PKCS#8 DER RSA key starts 0x30 0x82; sealed bytes start with the wrapped key length.
      expect(
        Buffer.from(item.sealed as Uint8Array)
          .subarray(0, 2)
          .equals(Buffer.from([0x30, 0x82])),
      ).toBe(false);
    }
  });
});

describe('bad input never answers 5xx', () => {
  const routes: [string, string][] = [
    ['POST', '/recipe/session'],
    ['POST', '/recipe/session/verify'],
    ['POST', '/recipe/session/refresh'],
    ['POST', '/recipe/session/regenerate'],
    ['POST', '/recipe/session/remove'],
    ['PUT', '/recipe/session/data'],
    ['PUT', '/recipe/jwt/data'],
    ['POST', '/recipe/jwt'],
  ];
  it('for arbitrary bodies', async () => {
    const field = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.dictionary(fc.string(), fc.string()),
      fc.array(fc.string()),
    );
    const body = fc.record(
      {
        userId: field,
        accessToken: field,
        refreshToken: field,
        sessionHandle: field,
        sessionHandles: field,
        userDataInJWT: field,
        userDataInDatabase: field,
        enableAntiCsrf: field,
        doAntiCsrfCheck: field,
        checkDatabase: field,
        useDynamicSigningKey: field,
        antiCsrfToken: field,
        algorithm: field,
        jwksDomain: field,
        payload: field,
        validity: fc.oneof(field, fc.double()),
        revokeAcrossAllTenants: field,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, async ([method, path], b) => {
        const reply = await call(method, `${base}${path}`, { body: b, headers: CDI });
        expect(reply.status, `${method} ${path} ${JSON.stringify(b)}: ${reply.text}`).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });

  it('for arbitrary queries', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/recipe/session', '/recipe/session/user'),
        fc.dictionary(
          fc.constantFrom('sessionHandle', 'userId', 'fetchAcrossAllTenants', 'fetchSessionsForAllLinkedAccounts'),
          fc.string(),
        ),
        async (path, query) => {
          const reply = await get(`${path}?${new URLSearchParams(query).toString()}`);
          expect(reply.status, `${path} ${JSON.stringify(query)}: ${reply.text}`).toBeLessThan(500);
        },
      ),
      { numRuns: 80 },
    );
  });
});
