/**
 * `POST /recipe/session/refresh` (docs/sessions.md "Refresh, promotion and theft detection"):
 * rotation of the refresh token with the reference's grace for concurrent refreshes, promotion by
 * the child token, and theft detection (a rotated-out token revokes the session).
 */
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import { type AccessTokenVersion, PROTECTED_FIELD, usesProtectedClaim } from './access-token.js';
import { type SessionDeps, sessionJson, unauthorised } from './deps.js';
import { liveSession } from './live-session.js';
import { openRefreshToken, sha256Hex } from './refresh-token.js';
import { issueTokenPair } from './token-pair.js';

const REFRESH_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'session refresh kept conflicting with concurrent refreshes',
};

export interface RefreshInput {
  readonly refreshToken: string;
  readonly antiCsrfToken: string | undefined;
  readonly enableAntiCsrf: boolean;
  /** Absent below CDI 3.0 (the session keeps its key kind). */
  readonly useDynamicSigningKey: boolean | undefined;
  /** The version the caller's CDI version implies: a session made with v2 tokens gets v5 from the SDK. */
  readonly accessTokenVersion: AccessTokenVersion;
}

/**
 * `POST /recipe/session/refresh`. The session's current refresh token gets a child (the session
 * moves to it when the child or its access token is first used — until then the current token may
 * be used again, the reference's grace for concurrent refreshes); a child of the current token
 * promotes the session, then gets a child of its own; any other token of the session is a replay
 * of a rotated-out token: the session is revoked and `TOKEN_THEFT_DETECTED` answered.
 */
export async function refreshSession(deps: SessionDeps, appId: string, input: RefreshInput) {
  const content = openRefreshToken(appId, await deps.keys.refreshKey(appId), input.refreshToken);
  if (!content) return unauthorised('Invalid refresh token');
  if (input.enableAntiCsrf && content.antiCsrfToken !== null && content.antiCsrfToken !== input.antiCsrfToken) {
    return unauthorised('Anti CSRF token missing, or not matching');
  }
  const hash1 = sha256Hex(input.refreshToken);
  const hash2 = sha256Hex(hash1);
  return reread(REFRESH_REREADS, async () => {
    const session = await liveSession(deps, appId, content.sessionHandle);
    if (!session) return unauthorised('Session missing in db or has expired');
    const now = deps.now();
    const useStaticKey = input.useDynamicSigningKey === undefined ? session.useStaticKey : !input.useDynamicSigningKey;

    if (session.refreshTokenHash2 === hash2) {
      // The stored payload in the new version: a claim that version owns (a v2 session's `sub`)
      // ends the refresh, as in the reference.
      if (usesProtectedClaim(session.userDataInJWT, input.accessTokenVersion) && input.accessTokenVersion > 2) {
        return unauthorised(PROTECTED_FIELD);
      }
      if (useStaticKey !== session.useStaticKey) {
        const kept = await deps.sessions.rotate(appId, session.handle, hash2, {
          refreshTokenHash2: hash2,
          expiresAt: session.expiresAt,
          useStaticKey,
        });
        if (!kept) return READ_AGAIN;
      }
      const { tokens } = await issueTokenPair(deps, appId, session, {
        version: input.accessTokenVersion,
        parentRefreshTokenHash1: hash1,
        enableAntiCsrf: input.enableAntiCsrf,
        useStaticKey,
        userDataInJWT: session.userDataInJWT,
      });
      return { status: 'OK' as const, session: sessionJson(session, session.userDataInJWT), ...tokens };
    }

    if (
      content.parentRefreshTokenHash1 !== null &&
      sha256Hex(content.parentRefreshTokenHash1) === session.refreshTokenHash2
    ) {
      // The child of the current token: the session moves to it, then it is refreshed as the current one.
      await deps.sessions.rotate(appId, session.handle, session.refreshTokenHash2, {
        refreshTokenHash2: hash2,
        expiresAt: now + deps.settings.refreshTokenValidityMs,
        useStaticKey,
      });
      return READ_AGAIN;
    }

    await deps.sessions.remove(appId, [session.handle]);
    return {
      status: 'TOKEN_THEFT_DETECTED' as const,
      session: { handle: session.handle, userId: session.userId, recipeUserId: session.recipeUserId },
    };
  });
}
