/**
 * The session use cases (docs/sessions.md): create, verify (with promotion of a refreshed
 * session), refresh (rotation with theft detection), regenerate, read, list, revoke, update, and
 * the JWT recipe's signing and JWKS. Each follows the reference core's rules and answers.
 */
import { randomUUID } from 'node:crypto';
import type { SessionSettings } from '#functions/config/index.js';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { BadRequestError, ForbiddenError } from '#functions/shared/errors.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import { externalIdOf } from '../users/model.js';
import type { UserStore } from '../users/ports.js';
import type { KeyRing } from './key-ring.js';
import { overlapMs } from './key-ring.js';
import type { JsonObject, SessionRecord } from './model.js';
import type { SessionStore } from './ports.js';
import {
  type AccessTokenClaims,
  type AccessTokenVersion,
  accessTokenForm,
  InvalidAccessTokenError,
  openRefreshToken,
  PROTECTED_FIELD,
  readAccessToken,
  readLegacyAccessToken,
  sealRefreshToken,
  sha256Hex,
  signAccessToken,
  signJwt,
  usesProtectedClaim,
} from './tokens.js';

export interface SessionDeps {
  readonly sessions: SessionStore;
  readonly keys: KeyRing;
  /** Reads users to put primary and recipe user ids (external where mapped) in tokens. */
  readonly users: Pick<UserStore, 'getUserBySuperTokensId' | 'getMappingByExternalId'>;
  readonly settings: SessionSettings;
  readonly now: () => number;
}

/** Longer than any handle this core makes (a UUID, `_`, a tenant id of at most 64): never a session. */
const MAX_HANDLE_LENGTH = 128;
const NO_SESSION = 'Session does not exist.';

interface TokenJson {
  token: string;
  expiry: number;
  createdTime: number;
}

interface SessionJson {
  handle: string;
  userId: string;
  recipeUserId: string;
  userDataInJWT: JsonObject;
  tenantId: string;
}

const sessionJson = (s: Pick<SessionRecord, 'handle' | 'userId' | 'recipeUserId' | 'tenantId'>, jwt: JsonObject) => ({
  handle: s.handle,
  userId: s.userId,
  recipeUserId: s.recipeUserId,
  userDataInJWT: jwt,
  tenantId: s.tenantId,
});

const unauthorised = (message: string) => ({ status: 'UNAUTHORISED' as const, message });
const tryRefresh = (message: string) => ({ status: 'TRY_REFRESH_TOKEN' as const, message });

/** A canonical JSON text (sorted keys) to compare payloads. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Primary and recipe user ids of `userId` as tokens carry them (external ids where mapped; as given for unknown ids). */
async function sessionUserIds(deps: SessionDeps, appId: string, userId: string) {
  let user = await deps.users.getUserBySuperTokensId(appId, userId);
  let superTokensId = userId;
  if (!user) {
    const mapping = await deps.users.getMappingByExternalId(appId, userId);
    if (mapping) {
      user = await deps.users.getUserBySuperTokensId(appId, mapping.superTokensUserId);
      superTokensId = mapping.superTokensUserId;
    }
  }
  if (!user) return { primary: userId, recipe: userId, all: [userId] };
  const all = [...new Set([user.userId, ...user.loginMethods.map((lm) => lm.recipeUserId)])].map((id) =>
    externalIdOf(user, id),
  );
  return { primary: externalIdOf(user, user.userId), recipe: externalIdOf(user, superTokensId), all };
}

/** A session as far as tokens name it. */
type SessionIds = Pick<SessionRecord, 'handle' | 'userId' | 'recipeUserId' | 'tenantId'>;

/** The refresh token an access token belongs to, and the anti-CSRF token it carries. */
interface TokenLineage {
  readonly refreshTokenHash1: string;
  readonly parentRefreshTokenHash1: string | null;
  readonly antiCsrfToken: string | null;
}

/**
 * The one place an access token's claims are put together: the session, its user ids and its
 * tenant always come from the session as stored (never from a token presented to the core), in the
 * version the caller's CDI version (or the presented token) implies.
 */
function sessionClaims(
  session: SessionIds,
  version: AccessTokenVersion,
  lineage: TokenLineage,
  userData: JsonObject,
  times: { readonly createdTime: number; readonly expiry: number },
): AccessTokenClaims {
  return {
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
}

/** The key that signs an access token now (made first when due: before the token's times are taken). */
type SigningKey = Awaited<ReturnType<KeyRing['signingKey']>>;

async function accessToken(claims: AccessTokenClaims, key: SigningKey): Promise<TokenJson> {
  // From v3 on, whole seconds, as the token's `exp` and `iat` say (the reference rounds them down the
  // same way); a v2 token keeps milliseconds.
  const rounded = (ms: number) => (claims.version === 2 ? ms : ms - (ms % 1000));
  return {
    token: await signAccessToken(claims, key),
    expiry: rounded(claims.expiry),
    createdTime: rounded(claims.createdTime),
  };
}

/** A fresh access token's times: from now, for the app's access token lifetime. */
const freshTimes = (deps: SessionDeps) => {
  const now = deps.now();
  return { createdTime: now, expiry: now + deps.settings.accessTokenValidityMs };
};

// ------------------------------------------------------------------------------------------------
// Create

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
  const access = await accessToken(
    sessionClaims(
      session,
      input.accessTokenVersion,
      { refreshTokenHash1: sha256Hex(refresh), parentRefreshTokenHash1: null, antiCsrfToken },
      input.userDataInJWT,
      { createdTime: now, expiry: now + deps.settings.accessTokenValidityMs },
    ),
    key,
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

// ------------------------------------------------------------------------------------------------
// Verify

export interface VerifyInput {
  readonly accessToken: string;
  readonly antiCsrfToken: string | undefined;
  readonly doAntiCsrfCheck: boolean;
  readonly enableAntiCsrf: boolean;
  readonly checkDatabase: boolean;
}

/**
 * The claims of an access token this app's keys signed (signature checked), or the reason it is
 * not one; `issuedAsSession` unless it lacks the purpose marker (a JWT of the JWT recipe).
 */
async function verifiedClaims(
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

/** Why a token the core did not issue as a session's is refused by a session route. */
const NOT_THIS_SESSION = 'Not an access token issued for this session';

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
  const stored = await deps.sessions.get(appId, claims.sessionHandle);
  if (!stored) return unauthorised('Either the session has ended or has been blacklisted');
  if (!namesSession(claims, stored)) return tryRefresh(NOT_THIS_SESSION);
  return { status: 'OK', session: sessionJson(stored, claims.userData) };
}

type VerifyResult =
  | { status: 'OK'; session: SessionJson; accessToken?: TokenJson }
  | { status: 'TRY_REFRESH_TOKEN' | 'UNAUTHORISED'; message: string };

const PROMOTION_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'session promotion kept conflicting with concurrent refreshes',
};

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
    stored = await deps.sessions.get(appId, claims.sessionHandle);
    if (!stored) return unauthorised('Either the session has ended or has been blacklisted');
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
    const session = attempt === 0 && stored ? stored : await deps.sessions.get(appId, claims.sessionHandle);
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
    const claimsNow = sessionClaims(
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
    const token = await accessToken(claimsNow, key);
    return { status: 'OK', session: sessionJson(session, session.userDataInJWT), accessToken: token };
  });
}

// ------------------------------------------------------------------------------------------------
// Refresh

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
    const session = await deps.sessions.get(appId, content.sessionHandle);
    const now = deps.now();
    if (!session || session.expiresAt < now) return unauthorised('Session missing in db or has expired');
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
      const antiCsrfToken = input.enableAntiCsrf ? randomUUID() : null;
      const child = sealRefreshToken(appId, await deps.keys.refreshKey(appId), {
        sessionHandle: session.handle,
        tenantId: session.tenantId,
        recipeUserId: session.recipeUserId,
        parentRefreshTokenHash1: hash1,
        antiCsrfToken,
      });
      const key = await deps.keys.signingKey(appId, deps.settings, useStaticKey);
      const access = await accessToken(
        sessionClaims(
          session,
          input.accessTokenVersion,
          { refreshTokenHash1: sha256Hex(child), parentRefreshTokenHash1: hash1, antiCsrfToken },
          session.userDataInJWT,
          freshTimes(deps),
        ),
        key,
      );
      return {
        status: 'OK' as const,
        session: sessionJson(session, session.userDataInJWT),
        accessToken: access,
        refreshToken: { token: child, expiry: now + deps.settings.refreshTokenValidityMs, createdTime: now },
        ...(antiCsrfToken === null ? {} : { antiCsrfToken }),
      };
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

// ------------------------------------------------------------------------------------------------
// Regenerate, read, update

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
  const session = await deps.sessions.get(appId, claims.sessionHandle);
  if (!session) return unauthorised(NO_SESSION);
  const payload = input.userDataInJWT ?? session.userDataInJWT;
  if ((input.checkPayload || claims.version > 2) && usesProtectedClaim(payload, claims.version)) {
    throw new BadRequestError(PROTECTED_FIELD);
  }
  if (!(await deps.sessions.update(appId, session.handle, { userDataInJWT: payload }))) return unauthorised(NO_SESSION);
  if (claims.expiry < deps.now()) return { status: 'OK' as const, session: sessionJson(session, payload) };
  const key = await deps.keys.signingKey(appId, deps.settings, session.useStaticKey);
  const token = await accessToken(
    sessionClaims(session, claims.version, claims, payload, { createdTime: deps.now(), expiry: claims.expiry }),
    key,
  );
  return { status: 'OK' as const, session: sessionJson(session, payload), accessToken: token };
}

/** `GET /recipe/session`. */
export async function getSessionInfo(deps: SessionDeps, appId: string, handle: string) {
  if (handle.length > MAX_HANDLE_LENGTH) return unauthorised(NO_SESSION);
  const session = await deps.sessions.get(appId, handle);
  if (!session || session.expiresAt < deps.now()) return unauthorised(NO_SESSION);
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
 * CDI 2.21, as in the reference).
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
  if (sessionHandle.length > MAX_HANDLE_LENGTH) return unauthorised(NO_SESSION);
  const updated = await deps.sessions.update(appId, sessionHandle, changes);
  return updated ? { status: 'OK' as const } : unauthorised(NO_SESSION);
}

// ------------------------------------------------------------------------------------------------
// Lists and revocation

const ONLY_PUBLIC = 'Only public tenantId can call this app specific API';

async function handlesOf(
  deps: SessionDeps,
  appId: string,
  tenantId: string | undefined,
  userId: string,
  linked: boolean,
): Promise<string[]> {
  const ids = linked ? (await sessionUserIds(deps, appId, userId)).all : [userId];
  if (!ids.includes(userId)) ids.push(userId);
  const lists = await Promise.all(ids.map((id) => deps.sessions.handlesOfUser(appId, id, tenantId)));
  return [...new Set(lists.flat())];
}

/** `GET /<tenant>/recipe/session/user`. */
export async function sessionHandlesOfUser(
  deps: SessionDeps,
  target: { appId: string; tenantId: string },
  input: { userId: string; acrossAllTenants: boolean; linkedAccounts: boolean },
) {
  if (input.acrossAllTenants && target.tenantId !== PUBLIC_TENANT_ID) throw new ForbiddenError(ONLY_PUBLIC);
  const tenant = input.acrossAllTenants ? undefined : target.tenantId;
  return {
    status: 'OK' as const,
    sessionHandles: await handlesOf(deps, target.appId, tenant, input.userId, input.linkedAccounts),
  };
}

export type RevokeInput =
  | { readonly userId: string; readonly acrossAllTenants: boolean; readonly linkedAccounts: boolean }
  | { readonly sessionHandles: readonly string[] };

/** `POST /<tenant>/recipe/session/remove`. */
export async function revokeSessions(
  deps: SessionDeps,
  target: { appId: string; tenantId: string },
  input: RevokeInput,
) {
  let handles: readonly string[];
  if ('userId' in input) {
    if (input.acrossAllTenants && target.tenantId !== PUBLIC_TENANT_ID) throw new ForbiddenError(ONLY_PUBLIC);
    handles = await handlesOf(
      deps,
      target.appId,
      input.acrossAllTenants ? undefined : target.tenantId,
      input.userId,
      input.linkedAccounts,
    );
  } else {
    handles = input.sessionHandles.filter((h) => h.length <= MAX_HANDLE_LENGTH);
  }
  return { status: 'OK' as const, sessionHandlesRevoked: await deps.sessions.remove(target.appId, handles) };
}

// ------------------------------------------------------------------------------------------------
// JWKS and the JWT recipe

const jwkOf = (kid: string, key: { n: string; e: string }) => ({
  kty: 'RSA',
  kid,
  n: key.n,
  e: key.e,
  alg: 'RS256',
  use: 'sig',
});

/** The app's public keys as a JWKS, and how long a verifier may cache it (the reference's `Cache-Control`). */
export async function jwks(deps: SessionDeps, appId: string) {
  const keys = await deps.keys.jwksKeys(appId, deps.settings);
  const jwkList = keys.flatMap((k) => (k.publicJwk ? [jwkOf(k.kid, k.publicJwk)] : []));
  const latest = keys.find((k) => k.kind === 'dynamic');
  const left = latest
    ? Math.floor(
        (latest.createdAt + deps.settings.dynamicKeyUpdateIntervalMs - overlapMs(deps.settings) - deps.now()) / 1000,
      )
    : 1;
  return { keys: jwkList, cacheSeconds: Math.max(left, 1) };
}

export interface CreateJwtInput {
  readonly algorithm: string;
  readonly jwksDomain: string;
  readonly payload: JsonObject;
  /** Seconds (> 0). */
  readonly validity: number;
  /** Absent = the static key (CDI ≥ 2.21 default). */
  readonly useStaticSigningKey: boolean | undefined;
}

/** `POST /recipe/jwt`: a JWT signed with the app's static key (default) or its current dynamic key. */
export async function createJwt(deps: SessionDeps, appId: string, input: CreateJwtInput) {
  if (input.algorithm.toUpperCase() !== 'RS256') return { status: 'UNSUPPORTED_ALGORITHM_ERROR' as const };
  const useStatic = input.useStaticSigningKey !== false;
  const key = await deps.keys.signingKey(appId, deps.settings, useStatic);
  const now = deps.now();
  const payload: JsonObject = {
    ...input.payload,
    iss: Object.hasOwn(input.payload, 'iss') ? input.payload.iss : input.jwksDomain,
    iat: Math.floor(now / 1000),
    exp: Math.floor((now + input.validity * 1000) / 1000),
  };
  const jwt = await signJwt(payload, { alg: 'RS256', typ: 'JWT', kid: key.kid }, key.privateKey);
  return { status: 'OK' as const, jwt };
}
