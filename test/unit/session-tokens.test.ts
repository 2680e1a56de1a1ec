/**
 * Access tokens by version (functions/domain/sessions/access-token.ts, docs/sessions.md "Tokens"): the
 * version each CDI version implies, the claims and header of each version, which payload names
 * each version refuses, reading back what was signed, and the forms a session route refuses — a
 * JWT of the JWT recipe among them.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { CompactSign, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  type AccessTokenClaims,
  type AccessTokenVersion,
  accessTokenForm,
  accessTokenVersionFor,
  InvalidAccessTokenError,
  readAccessToken,
  readLegacyAccessToken,
  signAccessToken,
  usesProtectedClaim,
} from '#functions/domain/sessions/access-token.js';
import { SUPPORTED_CDI_VERSIONS } from '#functions/shared/cdi.js';

const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const keys = [pair(), pair(), pair()];
const [first, second, third] = keys as [(typeof keys)[0], (typeof keys)[0], (typeof keys)[0]];
const signer = { kid: 'd-1', privateKey: first.privateKey };

const claims = (
  version: AccessTokenVersion,
  userData: Record<string, unknown> = { role: 'reader' },
): AccessTokenClaims => ({
  version,
  sessionHandle: 'handle-1_t1',
  userId: 'primary-1',
  recipeUserId: version === 5 ? 'recipe-1' : 'primary-1',
  tenantId: version >= 4 ? 't1' : 'public',
  refreshTokenHash1: 'a'.repeat(64),
  parentRefreshTokenHash1: null,
  antiCsrfToken: 'csrf-1',
  expiry: 1_900_000_000_123,
  createdTime: 1_899_999_000_456,
  userData,
});

const partsOf = (token: string) => {
  const [header = '', payload = '', signature = ''] = token.split('.');
  return { header, payload: JSON.parse(Buffer.from(payload, 'base64').toString('utf8')), signature };
};

async function read(token: string, publicKey: KeyObject = first.publicKey): Promise<AccessTokenClaims | undefined> {
  const form = accessTokenForm(token);
  return form.version === 2
    ? readLegacyAccessToken(token, [publicKey])
    : readAccessToken(token, form.version, publicKey);
}

describe('the version a CDI version implies', () => {
  it('is v2 below 2.21, v3 below 3.0, v4 below 4.0 and v5 from 4.0 on', () => {
    const expected = (cdi: string): AccessTokenVersion => {
      const [major = 0, minor = 0] = cdi.split('.').map(Number);
      if (major >= 4) return 5;
      if (major === 3) return 4;
      return major === 2 && minor >= 21 ? 3 : 2;
    };
    for (const cdi of SUPPORTED_CDI_VERSIONS) expect(accessTokenVersionFor(cdi), cdi).toBe(expected(cdi));
    expect(['2.18', '2.21', '3.0', '3.1', '4.0', '5.4'].map(accessTokenVersionFor)).toEqual([2, 3, 4, 4, 5, 5]);
  });
});

describe('what each version carries', () => {
  it('v2: the legacy header the SDK recognises, milliseconds, the payload under userData, no key id', async () => {
    const token = await signAccessToken(claims(2, { sub: 'the app’s own' }), signer);
    const { header, payload, signature } = partsOf(token);
    // The reference's v2 header: standard Base64 of {"alg":"RS256","typ":"JWT","version":"2"}.
    expect(header).toBe('eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsInZlcnNpb24iOiIyIn0=');
    expect(signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(payload).toEqual({
      userId: 'primary-1',
      expiryTime: 1_900_000_000_123,
      timeCreated: 1_899_999_000_456,
      sessionHandle: 'handle-1_t1',
      refreshTokenHash1: 'a'.repeat(64),
      antiCsrfToken: 'csrf-1',
      userData: { sub: 'the app’s own' },
    });
    expect(await read(token)).toEqual({ ...claims(2, { sub: 'the app’s own' }) });
  });

  it.each([
    [3, ['sub', 'exp', 'iat', 'sessionHandle', 'refreshTokenHash1', 'parentRefreshTokenHash1', 'antiCsrfToken']],
    [4, ['sub', 'exp', 'iat', 'tId', 'sessionHandle', 'refreshTokenHash1', 'parentRefreshTokenHash1', 'antiCsrfToken']],
    [
      5,
      [
        'sub',
        'exp',
        'iat',
        'tId',
        'rsub',
        'sessionHandle',
        'refreshTokenHash1',
        'parentRefreshTokenHash1',
        'antiCsrfToken',
      ],
    ],
  ] as const)(
    'v%i: its claims in seconds, then the payload; header with version, kid and the purpose marker',
    async (version, own) => {
      const token = await signAccessToken(claims(version), signer);
      expect(decodeProtectedHeader(token)).toEqual({
        alg: 'RS256',
        typ: 'JWT',
        version: String(version),
        kid: 'd-1',
        purpose: 'session',
      });
      const { payload } = partsOf(token);
      expect(Object.keys(payload)).toEqual([...own, 'role']);
      expect(payload).toMatchObject({
        sub: 'primary-1',
        exp: 1_900_000_000,
        iat: 1_899_999_000,
        antiCsrfToken: 'csrf-1',
      });
      const back = await read(token);
      expect(back).toEqual({ ...claims(version), expiry: 1_900_000_000_000, createdTime: 1_899_999_000_000 });
    },
  );

  it('v3 reads tId and rsub as the app’s own payload; v3 and v4 read the recipe user as the primary', async () => {
    const v3 = await read(await signAccessToken(claims(3, { tId: 'mine', rsub: 'mine too' }), signer));
    expect(v3).toMatchObject({
      tenantId: 'public',
      recipeUserId: 'primary-1',
      userData: { tId: 'mine', rsub: 'mine too' },
    });
    const v4 = await read(await signAccessToken(claims(4, { rsub: 'mine' }), signer));
    expect(v4).toMatchObject({ tenantId: 't1', recipeUserId: 'primary-1', userData: { rsub: 'mine' } });
  });

  it('reads back whatever payload it signed, for every version', async () => {
    const own = new Set([
      'sub',
      'exp',
      'iat',
      'tId',
      'rsub',
      'sessionHandle',
      'refreshTokenHash1',
      'parentRefreshTokenHash1',
      'antiCsrfToken',
    ]);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<AccessTokenVersion>(2, 3, 4, 5),
        fc.dictionary(
          fc.string().filter((k) => !own.has(k) && k !== '__proto__'),
          fc.jsonValue(),
          { maxKeys: 5 },
        ),
        async (version, userData) => {
          const signed = claims(version, JSON.parse(JSON.stringify(userData)));
          const back = await read(await signAccessToken(signed, signer));
          expect(back?.userData).toEqual(signed.userData);
          expect(back?.sessionHandle).toBe(signed.sessionHandle);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('payload names each version refuses', () => {
  it('sub is the app’s own in v2, tId before v4, rsub before v5', () => {
    const refused = (payload: Record<string, unknown>) =>
      ([2, 3, 4, 5] as const).filter((v) => usesProtectedClaim(payload, v));
    expect(refused({ sub: 'x' })).toEqual([3, 4, 5]);
    expect(refused({ tId: 'x' })).toEqual([4, 5]);
    expect(refused({ rsub: 'x' })).toEqual([5]);
    expect(refused({ userId: 'x' })).toEqual([2]);
    expect(refused({ expiryTime: 1 })).toEqual([2]);
    expect(refused({ sessionHandle: 'x' })).toEqual([2, 3, 4, 5]);
    expect(refused({ exp: 1, role: 'r' })).toEqual([3, 4, 5]);
    expect(refused({ role: 'r' })).toEqual([]);
  });

  it('signing a v3+ payload that names a claim of the version fails; v2 nests it', async () => {
    await expect(signAccessToken(claims(5, { rsub: 'x' }), signer)).rejects.toThrow(
      'The user payload contains protected field',
    );
    await expect(signAccessToken(claims(4, { tId: 'x' }), signer)).rejects.toThrow(
      'The user payload contains protected field',
    );
    await expect(signAccessToken(claims(4, { rsub: 'x' }), signer)).resolves.toEqual(expect.any(String));
  });
});

describe('tokens a session route refuses', () => {
  const jwtRecipeToken = (header: Record<string, unknown>, payload: Record<string, unknown>) =>
    new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'RS256', ...header })
      .sign(first.privateKey);
  const refusal = (token: string) => {
    try {
      accessTokenForm(token);
    } catch (error) {
      if (error instanceof InvalidAccessTokenError) return error.message;
      throw error;
    }
    return 'accepted';
  };

  it('tells the core’s session tokens from JWTs it did not issue as a session’s', async () => {
    const payload = { ...partsOf(await signAccessToken(claims(5), signer)).payload };
    const formOf = async (header: Record<string, unknown>) => accessTokenForm(await jwtRecipeToken(header, payload));
    // The JWT recipe's header: no version (read as v5, as the reference does), no marker.
    expect(await formOf({ typ: 'JWT', kid: 's-1' })).toEqual({ version: 5, kid: 's-1', issuedAsSession: false });
    // A version but no marker (this core before the marker, or anyone holding a private key).
    expect(await formOf({ typ: 'JWT', kid: 's-1', version: '4' })).toEqual({
      version: 4,
      kid: 's-1',
      issuedAsSession: false,
    });
    expect(await formOf({ typ: 'JWT', kid: 's-1', version: '5', purpose: 'other' })).toMatchObject({
      issuedAsSession: false,
    });
    // The marker without a version is not a session's header either.
    expect(await formOf({ typ: 'JWT', kid: 's-1', purpose: 'session' })).toMatchObject({ issuedAsSession: false });
    expect(accessTokenForm(await signAccessToken(claims(5), signer))).toEqual({
      version: 5,
      kid: 'd-1',
      issuedAsSession: true,
    });
    expect(accessTokenForm(await signAccessToken(claims(2), signer))).toEqual({ version: 2, issuedAsSession: true });
  });

  it('headers of the wrong form, with the reference’s messages', async () => {
    const p = { a: 1 };
    expect(refusal('a.b')).toBe('Invalid JWT');
    expect(refusal('%%%.b.c')).toBe('Invalid JWT');
    expect(refusal(`${Buffer.from('[1]').toString('base64url')}.b.c`)).toBe('Invalid JWT');
    expect(refusal(await jwtRecipeToken({ kid: 'k', version: '5' }, p))).toBe('JWT header missing - typ');
    expect(refusal(await jwtRecipeToken({ typ: 'JOSE', kid: 'k', version: '5' }, p))).toBe('JWT header mismatch - typ');
    expect(refusal(await jwtRecipeToken({ typ: 'JWT', kid: 'k', version: 5 }, p))).toBe(
      'JWT header mismatch - version',
    );
    expect(refusal(await jwtRecipeToken({ typ: 'JWT', kid: 'k', version: '2' }, p))).toBe(
      'JWT header mismatch - version',
    );
    expect(refusal(await jwtRecipeToken({ typ: 'JWT', kid: 'k', version: '6' }, p))).toBe(
      'JWT header mismatch - version',
    );
    expect(refusal(await jwtRecipeToken({ typ: 'JWT', version: '5', purpose: 'session' }, p))).toBe(
      'JWT header missing - kid',
    );
    // The reference's v1 header: not issued or accepted here.
    const v1 = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', version: '1' })).toString('base64');
    expect(refusal(`${v1}.e30=.c2ln`)).toBe('JWT header mismatch - version');
  });

  it('a v2 token verifies with the key that signed it among others, and not with others alone or altered', async () => {
    const token = await signAccessToken(claims(2), signer);
    expect(readLegacyAccessToken(token, [second.publicKey, third.publicKey, first.publicKey])).toEqual(claims(2));
    expect(readLegacyAccessToken(token, [second.publicKey, third.publicKey])).toBeUndefined();
    const { header, signature } = partsOf(token);
    const altered = Buffer.from(JSON.stringify({ ...partsOf(token).payload, userId: 'admin' })).toString('base64');
    expect(readLegacyAccessToken(`${header}.${altered}.${signature}`, [first.publicKey])).toBeUndefined();
  });

  it('a v2 header over anything else is refused, never thrown on', () => {
    const v2 = 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsInZlcnNpb24iOiIyIn0=';
    fc.assert(
      fc.property(fc.string(), fc.string(), (body, signature) => {
        expect(readLegacyAccessToken(`${v2}.${body}.${signature}`, [first.publicKey])).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it('a v3+ token signed by another key fails verification', async () => {
    const token = await signAccessToken(claims(5), signer);
    await expect(readAccessToken(token, 5, second.publicKey)).rejects.toThrow('JWT verification failed');
  });
});
