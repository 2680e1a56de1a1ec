/**
 * `POST /recipe/session/verify` (docs/sessions.md "Routes", "Refresh, promotion and theft
 * detection"): checks a presented access token, and promotes a refreshed session (or re-issues the
 * token when the stored payload changed) the first time its new access token is used.
 */
import { BadRequestError } from '#functions/shared/errors.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import {
  type AccessTokenClaims,
  InvalidAccessTokenError,
  PROTECTED_FIELD,
  usesProtectedClaim,
} from './access-token.js';
import { freshTimes, issueAccessToken, verifiedClaims } from './claims.js';
import {
  NOT_THIS_SESSION,
  type SessionDeps,
  type SessionJson,
  sessionJson,
  type TokenJson,
  tryRefresh,
  unauthorised,
} from './deps.js';
import { liveSession } from './live-session.js';
import type { SessionRecord } from './model.js';
import { sha256Hex } from './refresh-token.js';

export interface VerifyInput {
  readonly accessToken: string;
  readonly antiCsrfToken: string | undefined;
  readonly doAntiCsrfCheck: boolean;
  readonly enableAntiCsrf: boolean;
  readonly checkDatabase: boolean;
}

type VerifyResult =
  | { status: 'OK'; session: SessionJson; accessToken?: TokenJson }
  | { status: 'TRY_REFRESH_TOKEN' | 'UNAUTHORISED'; message: string };

const SESSION_ENDED = 'Either the session has ended or has been blacklisted';

const PROMOTION_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'session promotion kept conflicting with concurrent refreshes',
};

/** A canonical JSON text (sorted keys) to compare payloads. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The token names exactly the stored session's users and tenant (as far as its version names them). */
const namesSession = (claims: AccessTokenClaims, session: SessionRecord) =>
  claims.userId === session.userId &&
  (claims.version < 5 || claims.recipeUserId === session.recipeUserId) &&
  (claims.version < 4 || claims.tenantId === session.tenantId);

/**
 * A token the app's keys signed that the core did not issue as a session's — the SDK's custom
 * access token, made with the JWT recipe from a session's payload (`createJWT`): it verifies only
 * while its session lives and only when it names that session's users and tenant, and it never
 * promotes the session nor gets a new token (its caller chose its payload, its parent hash and its
 * lifetime).
 */
async function verifyCustomToken(deps: SessionDeps, appId: string, claims: AccessTokenClaims): Promise<VerifyResult> {
  if (claims.parentRefreshTokenHash1 !== null) return tryRefresh(NOT_THIS_SESSION);
  const stored = await liveSession(deps, appId, claims.sessionHandle);
  if (!stored) return unauthorised(SESSION_ENDED);
  if (!namesSession(claims, stored)) return tryRefresh(NOT_THIS_SESSION);
  return { status: 'OK', session: sessionJson(stored, claims.userData) };
}

/** `POST /recipe/session/verify`: promotes a refreshed session the first time its new access token is used. */
export async function verifySession(deps: SessionDeps, appId: string, input: VerifyInput): Promise<VerifyResult> {
  let claims: AccessTokenClaims;
  let issuedAsSession: boolean;
  try {
    ({ claims, issuedAsSession } = await verifiedClaims(deps, appId, input.accessToken));
  } catch (error) {
    if (error instanceof InvalidAccessTokenError) return tryRefresh(error.message);
    throw error;
  }
  if (claims.expiry < deps.now()) return tryRefresh('Access token expired');
  const checkCsrf = input.doAntiCsrfCheck && input.enableAntiCsrf;
  if (checkCsrf && claims.antiCsrfToken === null) {
    return tryRefresh('Access token does not contain all the information. Maybe the structure has changed?');
  }
  if (checkCsrf && input.antiCsrfToken !== claims.antiCsrfToken) return tryRefresh('anti-csrf check failed');
  if (!issuedAsSession) return verifyCustomToken(deps, appId, claims);

  let stored: SessionRecord | undefined;
  if (input.checkDatabase) {
    stored = await liveSession(deps, appId, claims.sessionHandle);
    if (!stored) return unauthorised(SESSION_ENDED);
  }
  const payloadChanged = stored !== undefined && canonical(claims.userData) !== canonical(stored.userDataInJWT);
  const tokenSession = {
    handle: claims.sessionHandle,
    userId: claims.userId,
    recipeUserId: claims.recipeUserId,
    tenantId: claims.tenantId,
  };
  if (claims.parentRefreshTokenHash1 === null && !payloadChanged) {
    return { status: 'OK', session: sessionJson(tokenSession, claims.userData) };
  }

  return reread(PROMOTION_REREADS, async (attempt) => {
    const session = attempt === 0 && stored ? stored : await liveSession(deps, appId, claims.sessionHandle);
    if (!session) return unauthorised('Session missing in db');
    const promote =
      claims.parentRefreshTokenHash1 !== null &&
      session.refreshTokenHash2 === sha256Hex(claims.parentRefreshTokenHash1);
    const current = session.refreshTokenHash2 === sha256Hex(claims.refreshTokenHash1);
    if (!promote && !current && !payloadChanged) {
      return { status: 'OK', session: sessionJson(tokenSession, claims.userData) };
    }
    // The stored payload goes into the new token (a v2 token nests it: any name is the app's there).
    if (claims.version > 2 && usesProtectedClaim(session.userDataInJWT, claims.version)) {
      throw new BadRequestError(PROTECTED_FIELD);
    }
    if (promote) {
      const moved = await deps.sessions.rotate(appId, session.handle, session.refreshTokenHash2, {
        refreshTokenHash2: sha256Hex(claims.refreshTokenHash1),
        expiresAt: deps.now() + deps.settings.refreshTokenValidityMs,
        useStaticKey: session.useStaticKey,
      });
      if (!moved) return READ_AGAIN;
    }
    // The new token is the stored session's (its ids and tenant), in the presented token's version.
    const key = await deps.keys.signingKey(appId, deps.settings, session.useStaticKey);
    const token = await issueAccessToken(
      key,
      session,
      claims.version,
      {
        refreshTokenHash1: claims.refreshTokenHash1,
        parentRefreshTokenHash1: null,
        antiCsrfToken: claims.antiCsrfToken,
      },
      session.userDataInJWT,
      freshTimes(deps),
    );
    return { status: 'OK', session: sessionJson(session, session.userDataInJWT), accessToken: token };
  });
}
