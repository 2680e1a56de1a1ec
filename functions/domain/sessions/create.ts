/**
 * `POST /<tenant>/recipe/session` (docs/sessions.md "Routes"): a new session for a user id — its
 * handle, its first refresh token (only its hash is stored), the access token, and the stored item.
 */
import { randomUUID } from 'node:crypto';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { type AccessTokenVersion, PROTECTED_FIELD, usesProtectedClaim } from './access-token.js';
import { type SessionDeps, sessionJson } from './deps.js';
import type { JsonObject, SessionRecord } from './model.js';
import { issueTokenPair } from './token-pair.js';
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
  const { primary, recipe } = await sessionUserIds(deps, appId, input.userId);
  const handle = tenantId === PUBLIC_TENANT_ID ? randomUUID() : `${randomUUID()}_${tenantId}`;
  const ids = { handle, tenantId, userId: primary, recipeUserId: recipe };
  const useStaticKey = input.useDynamicSigningKey === false;
  const { tokens, refreshTokenHash2 } = await issueTokenPair(deps, appId, ids, {
    version: input.accessTokenVersion,
    parentRefreshTokenHash1: null,
    enableAntiCsrf: input.enableAntiCsrf,
    useStaticKey,
    userDataInJWT: input.userDataInJWT,
  });
  const session: SessionRecord = {
    ...ids,
    refreshTokenHash2,
    userDataInJWT: input.userDataInJWT,
    userDataInDatabase: input.userDataInDatabase,
    expiresAt: tokens.refreshToken.expiry,
    createdAt: tokens.refreshToken.createdTime,
    useStaticKey,
  };
  await deps.sessions.create(appId, session);
  return { status: 'OK' as const, session: sessionJson(session, session.userDataInJWT), ...tokens };
}
