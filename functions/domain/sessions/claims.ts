/**
 * An access token's claims, both ways (docs/sessions.md "Tokens"): `issueAccessToken` is the one
 * place a token the core hands out is put together — by create, verify's promotion, refresh and
 * regenerate — and `verifiedClaims` reads back a presented token the app's keys signed.
 */

import {
  type AccessTokenClaims,
  type AccessTokenVersion,
  accessTokenForm,
  InvalidAccessTokenError,
  readAccessToken,
  readLegacyAccessToken,
  signAccessToken,
} from './access-token.js';
import type { SessionDeps, SessionIds, TokenJson } from './deps.js';
import type { KeyRing } from './key-ring.js';
import type { JsonObject } from './model.js';

/** The refresh token an access token belongs to, and the anti-CSRF token it carries. */
export interface TokenLineage {
  readonly refreshTokenHash1: string;
  readonly parentRefreshTokenHash1: string | null;
  readonly antiCsrfToken: string | null;
}

/** An access token's lifetime in epoch ms. */
export interface TokenTimes {
  readonly createdTime: number;
  readonly expiry: number;
}

/** The key that signs an access token now (made first when due: before the token's times are taken). */
export type SigningKey = Awaited<ReturnType<KeyRing['signingKey']>>;

/** A fresh access token's times: from now, for the app's access token lifetime. */
export const freshTimes = (deps: SessionDeps): TokenTimes => {
  const now = deps.now();
  return { createdTime: now, expiry: now + deps.settings.accessTokenValidityMs };
};

/**
 * A signed access token of `session`: its user ids and tenant always come from the session as
 * stored (never from a token presented to the core), in `version` (what the caller's CDI version or
 * the presented token implies), with the refresh token it belongs to, the app's payload and its times.
 */
export async function issueAccessToken(
  key: SigningKey,
  session: SessionIds,
  version: AccessTokenVersion,
  lineage: TokenLineage,
  userData: JsonObject,
  times: TokenTimes,
): Promise<TokenJson> {
  const claims: AccessTokenClaims = {
    version,
    sessionHandle: session.handle,
    userId: session.userId,
    recipeUserId: session.recipeUserId,
    tenantId: session.tenantId,
    refreshTokenHash1: lineage.refreshTokenHash1,
    parentRefreshTokenHash1: lineage.parentRefreshTokenHash1,
    antiCsrfToken: lineage.antiCsrfToken,
    userData,
    createdTime: times.createdTime,
    expiry: times.expiry,
  };
  // From v3 on, whole seconds, as the token's `exp` and `iat` say (the reference rounds them down the
  // same way); a v2 token keeps milliseconds.
  const rounded = (ms: number) => (version === 2 ? ms : ms - (ms % 1000));
  return {
    token: await signAccessToken(claims, key),
    expiry: rounded(claims.expiry),
    createdTime: rounded(claims.createdTime),
  };
}

/**
 * The claims of an access token this app's keys signed (signature checked), or the reason it is
 * not one (`InvalidAccessTokenError`); `issuedAsSession` unless it lacks the purpose marker (a JWT
 * of the JWT recipe).
 */
export async function verifiedClaims(
  deps: SessionDeps,
  appId: string,
  token: string,
): Promise<{ claims: AccessTokenClaims; issuedAsSession: boolean }> {
  const form = accessTokenForm(token);
  if (form.version === 2) {
    // A v2 token names no key: each key that still verifies is tried, then once more after a fresh read.
    const claims =
      readLegacyAccessToken(token, await deps.keys.allPublicKeys(appId, deps.settings)) ??
      readLegacyAccessToken(token, await deps.keys.allPublicKeys(appId, deps.settings, true));
    if (!claims) throw new InvalidAccessTokenError('JWT verification failed');
    return { claims, issuedAsSession: true };
  }
  const key = await deps.keys.publicKeyOf(appId, form.kid, deps.settings);
  if (!key) throw new InvalidAccessTokenError('Key not found');
  return { claims: await readAccessToken(token, form.version, key), issuedAsSession: form.issuedAsSession };
}
