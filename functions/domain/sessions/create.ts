/**
 * `POST /<tenant>/recipe/session` (docs/sessions.md "Routes"): a new session for a user id — its
 * handle, its first refresh token (only its hash is stored), the access token, and the stored item.
 */
import { randomUUID } from 'node:crypto';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { type AccessTokenVersion, PROTECTED_FIELD, usesProtectedClaim } from './access-token.js';
import { issueAccessToken } from './claims.js';
import { type SessionDeps, sessionJson } from './deps.js';
import type { JsonObject, SessionRecord } from './model.js';
import { sealRefreshToken, sha256Hex } from './refresh-token.js';
import { sessionUserIds } from './user-ids.js';

export interface CreateSessionInput {
  readonly userId: string;
  readonly userDataInJWT: JsonObject;
  readonly userDataInDatabase: JsonObject;
  readonly enableAntiCsrf: boolean;
  /** CDI ≥ 2.21: the caller's choice (absent = dynamic); below, the app's `access_token_signing_key_dynamic`. */
  readonly useDynamicSigningKey: boolean | undefined;
  /** The version the caller's CDI version implies (v5 for the SDK). */
  readonly accessTokenVersion: AccessTokenVersion;
}

/** `POST /<tenant>/recipe/session`. */
export async function createSession(
  deps: SessionDeps,
  target: { appId: string; tenantId: string },
  input: CreateSessionInput,
) {
  // A v2 token nests the payload under `userData`: any name is the app's own there.
  if (input.accessTokenVersion > 2 && usesProtectedClaim(input.userDataInJWT, input.accessTokenVersion)) {
    throw new BadRequestError(PROTECTED_FIELD);
  }
  const { appId, tenantId } = target;
  const ids = await sessionUserIds(deps, appId, input.userId);
  const useStaticKey = input.useDynamicSigningKey === false;
  // An app's first session makes its keys: the tokens' lifetimes start once they exist.
  const [refreshKey, key] = await Promise.all([
    deps.keys.refreshKey(appId),
    deps.keys.signingKey(appId, deps.settings, useStaticKey),
  ]);
  const now = deps.now();
  const handle = tenantId === PUBLIC_TENANT_ID ? randomUUID() : `${randomUUID()}_${tenantId}`;
  const antiCsrfToken = input.enableAntiCsrf ? randomUUID() : null;
  const refresh = sealRefreshToken(appId, refreshKey, {
    sessionHandle: handle,
    tenantId,
    recipeUserId: ids.recipe,
    parentRefreshTokenHash1: null,
    antiCsrfToken,
  });
  const refreshExpiry = now + deps.settings.refreshTokenValidityMs;
  const session: SessionRecord = {
    handle,
    tenantId,
    userId: ids.primary,
    recipeUserId: ids.recipe,
    refreshTokenHash2: sha256Hex(sha256Hex(refresh)),
    userDataInJWT: input.userDataInJWT,
    userDataInDatabase: input.userDataInDatabase,
    expiresAt: refreshExpiry,
    createdAt: now,
    useStaticKey,
  };
  const access = await issueAccessToken(
    key,
    session,
    input.accessTokenVersion,
    { refreshTokenHash1: sha256Hex(refresh), parentRefreshTokenHash1: null, antiCsrfToken },
    input.userDataInJWT,
    { createdTime: now, expiry: now + deps.settings.accessTokenValidityMs },
  );
  await deps.sessions.create(appId, session);
  return {
    status: 'OK' as const,
    session: sessionJson(session, session.userDataInJWT),
    accessToken: access,
    refreshToken: { token: refresh, expiry: refreshExpiry, createdTime: now },
    ...(antiCsrfToken === null ? {} : { antiCsrfToken }),
  };
}
