/**
 * Session tokens through the unmodified supertokens-node against `npm start` over HTTP
 * (docs/sessions.md): an app's keys exist before its first session (the SDK's JWKS read), access
 * tokens of the versions older SDKs asked for (v2, v4) verify in today's SDK and refresh into v5,
 * and a JWT of the JWT recipe carrying a live session handle and another user is not a session — the
 * core's verify and regenerate refuse it, so the SDK does too — while the SDK's own custom access
 * token (the session's claims signed by the JWT recipe) verifies, as the SDK's tests expect.
 */
import { createHash, randomBytes } from 'node:crypto';
import supertokens from 'supertokens-node';
import Jwt from 'supertokens-node/recipe/jwt';
import Session from 'supertokens-node/recipe/session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, createApp, startRuntime, stopRuntime } from './migrate-helpers.js';

const API_KEY = `tokens-e2e-${randomBytes(12).toString('hex')}`;
const APP_ID = `tokens-${randomBytes(4).toString('hex')}`;
const V2_HEADER = 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsInZlcnNpb24iOiIyIn0=';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

let runtime: LocalProcess | undefined;
let dir: string | undefined;
const core = coreCaller(() => runtime!, API_KEY);

const headerOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64').toString('utf8'));
const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64').toString('utf8'));

/** A session made as an SDK of CDI `cdi` made it (raw request: today's SDK no longer speaks it). */
async function legacySession(cdi: string, userDataInJWT: Record<string, unknown> = {}) {
  const response = await runtime!.fetch(`/appid-${APP_ID}/recipe/session`, {
    method: 'POST',
    headers: { 'api-key': API_KEY, 'content-type': 'application/json', 'cdi-version': cdi },
    body: JSON.stringify({ userId: 'legacy-user', enableAntiCsrf: false, userDataInJWT, userDataInDatabase: {} }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    session: { handle: string };
    accessToken: { token: string };
    refreshToken: { token: string };
  };
}

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'tokens-e2e-'));
  await createApp(core, APP_ID);
  supertokens.init({
    appInfo: { appName: 'tokens-e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: `${runtime.url}/appid-${APP_ID}`, apiKey: API_KEY },
    telemetry: false,
    recipeList: [Session.init(), Jwt.init()],
  });
});

afterAll(() => stopRuntime(runtime, dir));

describe('signing keys from the start', () => {
  it('the SDK reads a dynamic and the static key of a new app before its first session', async () => {
    const { keys } = await Jwt.getJWKS();
    expect(keys.map((k) => k.kid)).toEqual([expect.stringMatching(/^d-\d+$/), expect.stringMatching(/^s-/)]);
    expect(keys.every((k) => k.kty === 'RSA' && k.alg === 'RS256' && k.use === 'sig')).toBe(true);
  });
});

describe('access tokens of older CDI versions', () => {
  it('a v2 token (CDI 2.18) verifies in the SDK against the keys it tries in turn, and refreshes into v5', async () => {
    const legacy = await legacySession('2.18', { plan: 'pro' });
    expect(legacy.accessToken.token.split('.')[0]).toBe(V2_HEADER);
    const session = await Session.getSessionWithoutRequestResponse(legacy.accessToken.token);
    expect(session.getUserId()).toBe('legacy-user');
    expect(session.getHandle()).toBe(legacy.session.handle);
    expect(session.getAccessTokenPayload()).toEqual({ plan: 'pro' });
    // The core checks it too (checkDatabase), and sees its revocation.
    const checked = await Session.getSessionWithoutRequestResponse(legacy.accessToken.token, undefined, {
      checkDatabase: true,
    });
    expect(checked.getUserId()).toBe('legacy-user');

    const refreshed = await Session.refreshSessionWithoutRequestResponse(legacy.refreshToken.token);
    const token = refreshed.getAllSessionTokensDangerously().accessToken;
    expect(headerOf(token)).toMatchObject({ version: '5', kid: expect.stringMatching(/^d-/) });
    expect(payloadOf(token)).toMatchObject({ sub: 'legacy-user', rsub: 'legacy-user', tId: 'public', plan: 'pro' });

    await Session.revokeSession(legacy.session.handle);
    await expect(
      Session.getSessionWithoutRequestResponse(legacy.accessToken.token, undefined, { checkDatabase: true }),
    ).rejects.toMatchObject({ type: 'UNAUTHORISED' });
  });

  it('a v4 token (CDI 3.0) has tId and no rsub; the SDK reads it and regenerates it as v4', async () => {
    const legacy = await legacySession('3.0');
    const session = await Session.getSessionWithoutRequestResponse(legacy.accessToken.token);
    expect(Object.keys(session.getAccessTokenPayload()).sort()).toEqual(
      [
        'antiCsrfToken',
        'exp',
        'iat',
        'parentRefreshTokenHash1',
        'refreshTokenHash1',
        'sessionHandle',
        'sub',
        'tId',
      ].sort(),
    );
    await session.mergeIntoAccessTokenPayload({ plan: 'team' });
    const regenerated = session.getAllSessionTokensDangerously().accessToken;
    expect(headerOf(regenerated).version).toBe('4');
    expect(payloadOf(regenerated)).toMatchObject({ sub: 'legacy-user', tId: 'public', plan: 'team' });
    expect(payloadOf(regenerated)).not.toHaveProperty('rsub');
  });
});

describe('a JWT of the JWT recipe is not a session', () => {
  it('is refused by the core’s verify and regenerate, even carrying a live session handle', async () => {
    const victim = await Session.createNewSessionWithoutRequestResponse(
      'public',
      supertokens.convertToRecipeUserId('owner'),
    );
    const tokens = victim.getAllSessionTokensDangerously();
    const claims = payloadOf(tokens.accessToken);
    // Everything a session token says, but another user, and the session's refresh token as parent.
    const minted = await Jwt.createJWT(
      {
        ...claims,
        sub: 'intruder',
        rsub: 'intruder',
        parentRefreshTokenHash1: sha256(tokens.refreshToken ?? ''),
        refreshTokenHash1: sha256('made up'),
        exp: undefined,
        iat: undefined,
      },
      3600,
      false,
    );
    expect(minted.status).toBe('OK');
    if (minted.status !== 'OK') return;

    // The SDK passes its own checks (same key, v3 structure) and asks the core, which refuses.
    await expect(
      Session.getSessionWithoutRequestResponse(minted.jwt, undefined, { checkDatabase: true }),
    ).rejects.toMatchObject({ type: 'TRY_REFRESH_TOKEN' });

    // Signed with the dynamic key, as the SDK expects of a session token by default.
    const minted2 = await Jwt.createJWT(
      { ...claims, sub: 'intruder', rsub: 'intruder', exp: undefined, iat: undefined },
      3600,
      false,
    );
    expect(minted2.status).toBe('OK');
    if (minted2.status !== 'OK') return;
    // Without a reason to ask the core, the SDK accepts it locally; regenerating it at the core fails.
    const local = await Session.getSessionWithoutRequestResponse(minted2.jwt);
    await expect(local.mergeIntoAccessTokenPayload({ role: 'admin' })).rejects.toMatchObject({ type: 'UNAUTHORISED' });

    // The SDK's own custom access token — the session's claims, another lifetime — verifies with the
    // core while its session lives; the core never hands out a session token for it.
    const custom = await Jwt.createJWT({ ...claims, exp: undefined, iat: undefined }, 1234, false);
    expect(custom.status).toBe('OK');
    if (custom.status !== 'OK') return;
    const customSession = await Session.getSessionWithoutRequestResponse(custom.jwt, undefined, {
      checkDatabase: true,
    });
    expect(customSession.getUserId()).toBe('owner');
    const customPayload = customSession.getAccessTokenPayload();
    expect(customPayload.exp - customPayload.iat).toBe(1234);
    await expect(customSession.mergeIntoAccessTokenPayload({ role: 'admin' })).rejects.toMatchObject({
      type: 'UNAUTHORISED',
    });

    // The real session is untouched: not promoted by the forged parent, not given the new payload.
    const info = await Session.getSessionInformation(victim.getHandle());
    expect(info?.customClaimsInAccessTokenPayload).not.toHaveProperty('role');
    const refreshed = await Session.refreshSessionWithoutRequestResponse(tokens.refreshToken ?? '');
    expect(refreshed.getUserId()).toBe('owner');
  });
});
