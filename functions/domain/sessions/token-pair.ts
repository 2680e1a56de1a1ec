/**
 * A session's new pair of tokens (docs/sessions.md "Refresh, promotion and theft detection"): a
 * refresh token — the session's first, or the child of the one presented — and the access token
 * that belongs to it (it carries the refresh token's hash and, for a child, its parent's). Made by
 * create and refresh; only the refresh token's double hash is ever stored.
 */
import { randomUUID } from 'node:crypto';
import type { AccessTokenVersion } from './access-token.js';
import { issueAccessToken } from './claims.js';
import type { SessionDeps, SessionIds, TokenJson } from './deps.js';
import type { JsonObject } from './model.js';
import { sealRefreshToken, sha256Hex } from './refresh-token.js';

export interface TokenPairRequest {
  readonly version: AccessTokenVersion;
  /** SHA-256 of the refresh token this one is the child of; null for a session's first. */
  readonly parentRefreshTokenHash1: string | null;
  readonly enableAntiCsrf: boolean;
  readonly useStaticKey: boolean;
  readonly userDataInJWT: JsonObject;
}

/** The tokens as the routes answer them, and the hash the session keeps of the refresh token. */
export interface TokenPair {
  readonly tokens: { accessToken: TokenJson; refreshToken: TokenJson; antiCsrfToken?: string };
  readonly refreshTokenHash2: string;
}

export async function issueTokenPair(
  deps: SessionDeps,
  appId: string,
  session: SessionIds,
  request: TokenPairRequest,
): Promise<TokenPair> {
  // An app's first session makes its keys: the tokens' lifetimes start once they exist.
  const [refreshKey, key] = await Promise.all([
    deps.keys.refreshKey(appId),
    deps.keys.signingKey(appId, deps.settings, request.useStaticKey),
  ]);
  const now = deps.now();
  const antiCsrfToken = request.enableAntiCsrf ? randomUUID() : null;
  const refresh = sealRefreshToken(appId, refreshKey, {
    sessionHandle: session.handle,
    tenantId: session.tenantId,
    recipeUserId: session.recipeUserId,
    parentRefreshTokenHash1: request.parentRefreshTokenHash1,
    antiCsrfToken,
  });
  const accessToken = await issueAccessToken(
    key,
    session,
    request.version,
    { refreshTokenHash1: sha256Hex(refresh), parentRefreshTokenHash1: request.parentRefreshTokenHash1, antiCsrfToken },
    request.userDataInJWT,
    { createdTime: now, expiry: now + deps.settings.accessTokenValidityMs },
  );
  return {
    tokens: {
      accessToken,
      refreshToken: { token: refresh, expiry: now + deps.settings.refreshTokenValidityMs, createdTime: now },
      ...(antiCsrfToken === null ? {} : { antiCsrfToken }),
    },
    refreshTokenHash2: sha256Hex(sha256Hex(refresh)),
  };
}
