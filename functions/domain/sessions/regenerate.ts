/**
 * `POST /recipe/session/regenerate` (docs/sessions.md "Routes"): a session's access-token payload
 * replaced (the SDK's `mergeIntoAccessTokenPayload`), and the presented token re-issued with it.
 */
import { BadRequestError } from '#functions/shared/errors.js';
import {
  type AccessTokenClaims,
  InvalidAccessTokenError,
  PROTECTED_FIELD,
  usesProtectedClaim,
} from './access-token.js';
import { issueAccessToken, verifiedClaims } from './claims.js';
import { NO_SESSION, NOT_THIS_SESSION, type SessionDeps, sessionJson, unauthorised } from './deps.js';
import { liveSession } from './live-session.js';
import type { JsonObject } from './model.js';

export interface RegenerateInput {
  readonly accessToken: string;
  readonly userDataInJWT: JsonObject | undefined;
  /**
   * CDI ≥ 2.21: the new payload is checked against the presented token's own claims (a v2 token's
   * `userId`, `expiryTime` …); below, only a v3+ token's claims are (they would collide when signed).
   */
  readonly checkPayload: boolean;
}

/**
 * `POST /recipe/session/regenerate`: new payload (or the stored one), same expiry, the presented
 * token's version; no token when the old one expired. The ids and tenant are the stored session's.
 */
export async function regenerateSession(deps: SessionDeps, appId: string, input: RegenerateInput) {
  let claims: AccessTokenClaims;
  try {
    const verified = await verifiedClaims(deps, appId, input.accessToken);
    // A custom access token (the JWT recipe's) would come back as a session's token, with its lifetime.
    if (!verified.issuedAsSession) return unauthorised(NOT_THIS_SESSION);
    claims = verified.claims;
  } catch (error) {
    if (error instanceof InvalidAccessTokenError) return unauthorised(error.message);
    throw error;
  }
  const session = await liveSession(deps, appId, claims.sessionHandle);
  if (!session) return unauthorised(NO_SESSION);
  const payload = input.userDataInJWT ?? session.userDataInJWT;
  if ((input.checkPayload || claims.version > 2) && usesProtectedClaim(payload, claims.version)) {
    throw new BadRequestError(PROTECTED_FIELD);
  }
  if (!(await deps.sessions.update(appId, session.handle, { userDataInJWT: payload }))) return unauthorised(NO_SESSION);
  if (claims.expiry < deps.now()) return { status: 'OK' as const, session: sessionJson(session, payload) };
  const key = await deps.keys.signingKey(appId, deps.settings, session.useStaticKey);
  const token = await issueAccessToken(key, session, claims.version, claims, payload, {
    createdTime: deps.now(),
    expiry: claims.expiry,
  });
  return { status: 'OK' as const, session: sessionJson(session, payload), accessToken: token };
}
