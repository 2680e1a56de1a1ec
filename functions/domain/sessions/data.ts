/**
 * A session's stored data (docs/sessions.md "Routes"): `GET /recipe/session` reads it,
 * `PUT /recipe/session/data` and `PUT /recipe/jwt/data` replace the session data or the
 * access-token payload (the next token the core issues carries it).
 */
import { BadRequestError } from '#functions/shared/errors.js';
import { type AccessTokenVersion, PROTECTED_FIELD, usesProtectedClaim } from './access-token.js';
import { NO_SESSION, type SessionDeps, unauthorised } from './deps.js';
import { liveSession } from './live-session.js';
import type { JsonObject } from './model.js';

/** `GET /recipe/session`. */
export async function getSessionInfo(deps: SessionDeps, appId: string, handle: string) {
  const session = await liveSession(deps, appId, handle);
  if (!session) return unauthorised(NO_SESSION);
  return {
    status: 'OK' as const,
    sessionHandle: session.handle,
    userId: session.userId,
    recipeUserId: session.recipeUserId,
    userDataInDatabase: session.userDataInDatabase,
    expiry: session.expiresAt,
    userDataInJWT: session.userDataInJWT,
    timeCreated: session.createdAt,
    useStaticKey: session.useStaticKey,
    tenantId: session.tenantId,
  };
}

/**
 * `PUT /recipe/session/data` and `PUT /recipe/jwt/data`. A new access-token payload is checked
 * against the claims of `protectedFor` (the version the caller's CDI version implies; none below
 * CDI 2.21, as in the reference). Only a live session is changed (read first: an expired one that
 * TTL has not removed yet answers as absent).
 */
export async function updateSession(
  deps: SessionDeps,
  appId: string,
  input: {
    sessionHandle: string;
    userDataInDatabase?: JsonObject;
    userDataInJWT?: JsonObject;
    protectedFor?: AccessTokenVersion;
  },
) {
  const { sessionHandle, protectedFor, ...changes } = input;
  if (changes.userDataInJWT && protectedFor !== undefined && usesProtectedClaim(changes.userDataInJWT, protectedFor)) {
    throw new BadRequestError(PROTECTED_FIELD);
  }
  if (!(await liveSession(deps, appId, sessionHandle))) return unauthorised(NO_SESSION);
  const updated = await deps.sessions.update(appId, sessionHandle, changes);
  return updated ? { status: 'OK' as const } : unauthorised(NO_SESSION);
}
