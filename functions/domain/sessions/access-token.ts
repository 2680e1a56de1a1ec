/**
 * A session's access tokens (docs/sessions.md "Tokens"): their wire format by version, how they
 * are signed and read back, and which payload names each version keeps for itself (the refresh
 * token is refresh-token.ts's).
 *
 * - JWTs as the reference core makes them, in the version the caller's CDI version implies (v2
 *   below CDI 2.21, v3 below 3.0, v4 below 4.0, v5 from 4.0 on):
 *   - v3, v4, v5: header `{alg: RS256, typ: JWT, version, kid}` plus this core's purpose marker
 *     (below); claims `sub, exp, iat`, `tId` (v4 on), `rsub` (v5), `sessionHandle,
 *     refreshTokenHash1, parentRefreshTokenHash1, antiCsrfToken` (the last two `null` when absent),
 *     then the app's payload at the top level. Signed and verified with `jose`.
 *   - v2 (legacy): the fixed header `{"alg":"RS256","typ":"JWT","version":"2"}` without a key id,
 *     every part in standard Base64; claims `userId, expiryTime, timeCreated` (ms),
 *     `sessionHandle, refreshTokenHash1`, the other two only when set, and the app's payload nested
 *     under `userData`. Verified against every key that may verify (no key id).
 * - The purpose marker: every v3+ access token's protected header carries `purpose: "session"`,
 *   which `POST /recipe/jwt` never writes (it sets the whole header itself). A token the app's keys
 *   verify without it — a JWT of the JWT recipe, which the SDK accepts as a custom access token —
 *   is not one the core issued as a session's: the session routes never promote or re-issue it
 *   (docs/sessions.md "Tokens bound to their purpose and session"). Verifiers that do not know the
 *   marker ignore it, as JOSE requires.
 */
import { type KeyObject, sign, verify } from 'node:crypto';
import { CompactSign, compactVerify } from 'jose';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import type { JsonObject } from './model.js';

/** The access-token versions this core issues and verifies. */
export type AccessTokenVersion = 2 | 3 | 4 | 5;

/** The version the reference issues for a CDI version: v5 from 4.0, v4 from 3.0, v3 from 2.21, else v2. */
export function accessTokenVersionFor(cdiVersion: string): AccessTokenVersion {
  if (cdiAtLeast(cdiVersion, '4.0')) return 5;
  if (cdiAtLeast(cdiVersion, '3.0')) return 4;
  if (cdiAtLeast(cdiVersion, '2.21')) return 3;
  return 2;
}

/** The v2 token's own top-level claims (its app payload is nested under `userData`). */
const V2_CLAIMS = ['userId', 'expiryTime', 'timeCreated', 'sessionHandle', 'refreshTokenHash1'] as const;
const V3_CLAIMS = [
  'sub',
  'exp',
  'iat',
  'sessionHandle',
  'refreshTokenHash1',
  'parentRefreshTokenHash1',
  'antiCsrfToken',
] as const;

/** The claims the core owns in a token of `version`: an app payload naming one is refused. */
function protectedClaims(version: AccessTokenVersion): readonly string[] {
  switch (version) {
    case 2:
      return V2_CLAIMS;
    case 3:
      return V3_CLAIMS;
    case 4:
      return [...V3_CLAIMS, 'tId'];
    case 5:
      return [...V3_CLAIMS, 'tId', 'rsub'];
  }
}

/**
 * True when the app's payload names a claim a token of `version` owns (`sub` is the app's own
 * before v3, `tId` before v4, `rsub` before v5, as in the reference).
 */
export const usesProtectedClaim = (payload: JsonObject, version: AccessTokenVersion) =>
  protectedClaims(version).some((c) => Object.hasOwn(payload, c));

/** The core's answer to a payload that names a claim the core owns. */
export const PROTECTED_FIELD = 'The user payload contains protected field';

/** Signing a payload that names a claim of the token's version (the caller answers per route). */
class ProtectedClaimError extends Error {
  constructor() {
    super(PROTECTED_FIELD);
  }
}

/** What an access token says. */
export interface AccessTokenClaims {
  readonly version: AccessTokenVersion;
  readonly sessionHandle: string;
  /** `sub` (v3+) or `userId` (v2): the primary user id. */
  readonly userId: string;
  /** `rsub` in v5; before, the primary user id (what the reference reads). */
  readonly recipeUserId: string;
  /** `tId` from v4 on; before, the public tenant (what the reference reads). */
  readonly tenantId: string;
  readonly refreshTokenHash1: string;
  readonly parentRefreshTokenHash1: string | null;
  readonly antiCsrfToken: string | null;
  /** Epoch ms; whole seconds from v3 on (the JWT's `exp` × 1000). */
  readonly expiry: number;
  readonly createdTime: number;
  /** The app's part of the payload (v3+: everything but the version's own claims; v2: `userData`). */
  readonly userData: JsonObject;
}

/** The header parameter that marks a session's access token, and its value. */
const PURPOSE_PARAMETER = 'purpose';
const SESSION_PURPOSE = 'session';

const encoder = new TextEncoder();
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The reference's v2 header, as the SDK recognises it: standard Base64 of this exact text. */
const V2_HEADER = base64(JSON.stringify({ alg: 'RS256', typ: 'JWT', version: '2' }));
const V1_HEADER = base64(JSON.stringify({ alg: 'RS256', typ: 'JWT', version: '1' }));

/** The claims a token of the claims' version carries; the app's payload may not name one of them. */
function accessTokenPayload(claims: AccessTokenClaims): JsonObject {
  if (claims.version === 2) {
    return {
      userId: claims.userId,
      expiryTime: claims.expiry,
      timeCreated: claims.createdTime,
      sessionHandle: claims.sessionHandle,
      refreshTokenHash1: claims.refreshTokenHash1,
      ...(claims.parentRefreshTokenHash1 === null ? {} : { parentRefreshTokenHash1: claims.parentRefreshTokenHash1 }),
      ...(claims.antiCsrfToken === null ? {} : { antiCsrfToken: claims.antiCsrfToken }),
      userData: claims.userData,
    };
  }
  const payload: JsonObject = {
    sub: claims.userId,
    exp: Math.floor(claims.expiry / 1000),
    iat: Math.floor(claims.createdTime / 1000),
    ...(claims.version >= 4 ? { tId: claims.tenantId } : {}),
    ...(claims.version >= 5 ? { rsub: claims.recipeUserId } : {}),
    sessionHandle: claims.sessionHandle,
    refreshTokenHash1: claims.refreshTokenHash1,
    parentRefreshTokenHash1: claims.parentRefreshTokenHash1,
    antiCsrfToken: claims.antiCsrfToken,
  };
  for (const [k, v] of Object.entries(claims.userData)) {
    if (Object.hasOwn(payload, k)) throw new ProtectedClaimError();
    payload[k] = v;
  }
  return payload;
}

/** Signs the claims as an access token of their version with `key`; a {@link ProtectedClaimError} when the payload collides. */
export async function signAccessToken(
  claims: AccessTokenClaims,
  key: { kid: string; privateKey: KeyObject },
): Promise<string> {
  const payload = accessTokenPayload(claims);
  if (claims.version === 2) {
    const signed = `${V2_HEADER}.${base64(JSON.stringify(payload))}`;
    return `${signed}.${sign('sha256', Buffer.from(signed, 'utf8'), key.privateKey).toString('base64')}`;
  }
  return signJwt(
    payload,
    {
      alg: 'RS256',
      typ: 'JWT',
      version: String(claims.version),
      kid: key.kid,
      [PURPOSE_PARAMETER]: SESSION_PURPOSE,
    },
    key.privateKey,
  );
}

/** Signs a JSON payload with an RS256 key and the given header (alg, typ, kid …). */
export function signJwt(payload: JsonObject, header: JsonObject & { alg: string }, privateKey: KeyObject) {
  return new CompactSign(encoder.encode(JSON.stringify(payload))).setProtectedHeader(header).sign(privateKey);
}

/** Why an access token is not accepted; the message is the core's TRY_REFRESH_TOKEN message. */
export class InvalidAccessTokenError extends Error {}

/**
 * What the header of a presented access token says: a legacy v2 token (no key id), or v3+ with its
 * key id; `issuedAsSession` when the core issued it as a session's token (a v2 token, or the purpose
 * marker with a `version` header).
 */
export type AccessTokenForm =
  | { readonly version: 2; readonly issuedAsSession: true }
  | { readonly version: 3 | 4 | 5; readonly kid: string; readonly issuedAsSession: boolean };

/**
 * The form of a presented access token, or an {@link InvalidAccessTokenError} with the reference's
 * message: a v2 token has the legacy header exactly; any other needs `typ: JWT`, `alg: RS256`, a
 * string `kid` and a `version` of 3, 4 or 5 — or none, which the reference reads as its latest
 * version: a JWT of the JWT recipe (never issued as a session's token).
 */
export function accessTokenForm(token: string): AccessTokenForm {
  const parts = token.split('.');
  if (parts.length !== 3) throw new InvalidAccessTokenError('Invalid JWT');
  const [encodedHeader = ''] = parts;
  if (encodedHeader === V2_HEADER) return { version: 2, issuedAsSession: true };
  if (encodedHeader === V1_HEADER) throw new InvalidAccessTokenError('JWT header mismatch - version');
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidAccessTokenError('Invalid JWT');
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw new InvalidAccessTokenError('Invalid JWT');
  }
  const h = header as Record<string, unknown>;
  if (h.typ === undefined) throw new InvalidAccessTokenError('JWT header missing - typ');
  if (h.typ !== 'JWT') throw new InvalidAccessTokenError('JWT header mismatch - typ');
  if (h.alg === undefined) throw new InvalidAccessTokenError('JWT header missing - alg');
  if (h.alg !== 'RS256') throw new InvalidAccessTokenError('JWT header mismatch - alg');
  const version = h.version ?? '5';
  if (version !== '3' && version !== '4' && version !== '5') {
    throw new InvalidAccessTokenError('JWT header mismatch - version');
  }
  if (h.kid === undefined) throw new InvalidAccessTokenError('JWT header missing - kid');
  if (typeof h.kid !== 'string') throw new InvalidAccessTokenError('JWT header mismatch - kid');
  return {
    version: Number(version) as 3 | 4 | 5,
    kid: h.kid,
    issuedAsSession: h.version !== undefined && h[PURPOSE_PARAMETER] === SESSION_PURPOSE,
  };
}

/** Verifies a v3+ token's signature with `publicKey` and reads its claims; expiry is the caller's to judge. */
export async function readAccessToken(
  token: string,
  version: 3 | 4 | 5,
  publicKey: KeyObject,
): Promise<AccessTokenClaims> {
  let payload: unknown;
  try {
    const verified = await compactVerify(token, publicKey, { algorithms: ['RS256'] });
    payload = JSON.parse(new TextDecoder().decode(verified.payload));
  } catch {
    throw new InvalidAccessTokenError('JWT verification failed');
  }
  return claimsOf(payload, version);
}

/**
 * Verifies a v2 token against each key that may have signed it (it names none) and reads its
 * claims; undefined when none of them verifies it.
 */
export function readLegacyAccessToken(token: string, publicKeys: readonly KeyObject[]): AccessTokenClaims | undefined {
  const [header = '', body = '', signature = ''] = token.split('.');
  const signed = Buffer.from(`${header}.${body}`, 'utf8');
  const bytes = Buffer.from(signature, 'base64');
  if (!publicKeys.some((key) => verify('sha256', signed, key, bytes))) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64').toString('utf8'));
  } catch {
    throw new InvalidAccessTokenError('Invalid JWT');
  }
  return claimsOf(payload, 2);
}

const STRUCTURE_CHANGED = 'Access token does not contain all the information. Maybe the structure has changed?';

/** The claims of a verified payload of `version`, or the reference's structure message. */
function claimsOf(payload: unknown, version: AccessTokenVersion): AccessTokenClaims {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new InvalidAccessTokenError(STRUCTURE_CHANGED);
  }
  const p = payload as Record<string, unknown>;
  const text = (k: string) => (typeof p[k] === 'string' ? (p[k] as string) : undefined);
  const orNull = (k: string) => (p[k] === null || p[k] === undefined ? null : text(k));
  const num = (k: string) => (typeof p[k] === 'number' && Number.isFinite(p[k]) ? (p[k] as number) : undefined);
  const sessionHandle = text('sessionHandle');
  const refreshTokenHash1 = text('refreshTokenHash1');
  const parent = orNull('parentRefreshTokenHash1');
  const antiCsrf = orNull('antiCsrfToken');
  const userId = version === 2 ? text('userId') : text('sub');
  // v2 in milliseconds, later versions in seconds.
  const expiryValue = version === 2 ? num('expiryTime') : num('exp');
  const createdValue = version === 2 ? num('timeCreated') : num('iat');
  const tenantId = version >= 4 ? text('tId') : PUBLIC_TENANT_ID;
  const recipeUserId = version >= 5 ? text('rsub') : userId;
  const nested = p.userData;
  const userData =
    version === 2
      ? nested !== null && typeof nested === 'object' && !Array.isArray(nested)
        ? (nested as JsonObject)
        : undefined
      : Object.fromEntries(Object.entries(p).filter(([k]) => !protectedClaims(version).includes(k)));
  if (
    sessionHandle === undefined ||
    refreshTokenHash1 === undefined ||
    parent === undefined ||
    antiCsrf === undefined ||
    userId === undefined ||
    recipeUserId === undefined ||
    tenantId === undefined ||
    expiryValue === undefined ||
    createdValue === undefined ||
    userData === undefined
  ) {
    throw new InvalidAccessTokenError(STRUCTURE_CHANGED);
  }
  const ms = version === 2 ? 1 : 1000;
  return {
    version,
    sessionHandle,
    userId,
    recipeUserId,
    tenantId,
    refreshTokenHash1,
    parentRefreshTokenHash1: parent,
    antiCsrfToken: antiCsrf,
    expiry: expiryValue * ms,
    createdTime: createdValue * ms,
    userData,
  };
}
