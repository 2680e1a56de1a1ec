/**
 * The tokens of a session (docs/sessions.md "Tokens"):
 *
 * - Access tokens: v5 JWTs as the reference core makes them — header `{alg: RS256, typ: JWT,
 *   version: "5", kid}`, claims `sub, exp, iat, tId, rsub, sessionHandle, refreshTokenHash1,
 *   parentRefreshTokenHash1, antiCsrfToken` (the last two `null` when absent) and the app's
 *   payload. Signed and verified with `jose`.
 * - Refresh tokens: opaque to everyone but the core — AES-256-GCM under the app's refresh-token
 *   key of what the core needs to find and check the session (handle, tenant, user, parent hash,
 *   anti-CSRF token, a nonce), bound to the app. The core stores only SHA-256(SHA-256(token)).
 */
import { createCipheriv, createDecipheriv, createHash, type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import { CompactSign, compactVerify, decodeProtectedHeader } from 'jose';
import type { JsonObject } from './model.js';

/** Claims the core owns; an app payload naming one of them is refused. */
const PROTECTED_CLAIMS = [
  'sub',
  'exp',
  'iat',
  'sessionHandle',
  'refreshTokenHash1',
  'parentRefreshTokenHash1',
  'antiCsrfToken',
  'tId',
  'rsub',
] as const;

const ACCESS_TOKEN_VERSION = '5';

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** What a v5 access token says. */
export interface AccessTokenClaims {
  readonly sessionHandle: string;
  readonly userId: string;
  readonly recipeUserId: string;
  readonly tenantId: string;
  readonly refreshTokenHash1: string;
  readonly parentRefreshTokenHash1: string | null;
  readonly antiCsrfToken: string | null;
  /** Epoch ms, whole seconds (the JWT's `exp` × 1000). */
  readonly expiry: number;
  readonly createdTime: number;
  /** The app's part of the payload (everything but the protected claims). */
  readonly userData: JsonObject;
}

/** True when the app's payload uses a claim the core owns. */
export const usesProtectedClaim = (payload: JsonObject) => PROTECTED_CLAIMS.some((c) => Object.hasOwn(payload, c));

const encoder = new TextEncoder();

/** Signs the claims as a v5 access token with `key`. */
export async function signAccessToken(
  claims: AccessTokenClaims,
  key: { kid: string; privateKey: KeyObject },
): Promise<string> {
  const payload: JsonObject = {
    sub: claims.userId,
    exp: Math.floor(claims.expiry / 1000),
    iat: Math.floor(claims.createdTime / 1000),
    tId: claims.tenantId,
    rsub: claims.recipeUserId,
    sessionHandle: claims.sessionHandle,
    refreshTokenHash1: claims.refreshTokenHash1,
    parentRefreshTokenHash1: claims.parentRefreshTokenHash1,
    antiCsrfToken: claims.antiCsrfToken,
  };
  for (const [k, v] of Object.entries(claims.userData)) {
    if (!Object.hasOwn(payload, k)) payload[k] = v;
  }
  return signJwt(payload, { alg: 'RS256', typ: 'JWT', version: ACCESS_TOKEN_VERSION, kid: key.kid }, key.privateKey);
}

/** Signs a JSON payload with an RS256 key and the given header (alg, typ, kid …). */
export function signJwt(payload: JsonObject, header: JsonObject & { alg: string }, privateKey: KeyObject) {
  return new CompactSign(encoder.encode(JSON.stringify(payload))).setProtectedHeader(header).sign(privateKey);
}

/** Why an access token is not accepted; the message is the core's TRY_REFRESH_TOKEN message. */
export class InvalidAccessTokenError extends Error {}

/** The `kid` of a JWT in the v5 form (typ JWT, alg RS256, a string kid), or an {@link InvalidAccessTokenError}. */
export function accessTokenKid(token: string): string {
  let header: Record<string, unknown>;
  try {
    if (token.split('.').length !== 3) throw new Error('Invalid JWT');
    header = decodeProtectedHeader(token) as Record<string, unknown>;
  } catch {
    throw new InvalidAccessTokenError('Invalid JWT');
  }
  if (header.typ !== 'JWT') throw new InvalidAccessTokenError('JWT header mismatch - typ');
  if (header.alg !== 'RS256') throw new InvalidAccessTokenError('JWT header mismatch - alg');
  if (header.version !== undefined && header.version !== ACCESS_TOKEN_VERSION) {
    throw new InvalidAccessTokenError('JWT header mismatch - version');
  }
  if (typeof header.kid !== 'string') throw new InvalidAccessTokenError('JWT header missing - kid');
  return header.kid;
}

/** Verifies the signature with `publicKey` and reads the claims; expiry is the caller's to judge. */
export async function readAccessToken(token: string, publicKey: KeyObject): Promise<AccessTokenClaims> {
  let payload: Record<string, unknown>;
  try {
    const verified = await compactVerify(token, publicKey, { algorithms: ['RS256'] });
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  } catch {
    throw new InvalidAccessTokenError('JWT verification failed');
  }
  return claimsOf(payload);
}

function claimsOf(payload: Record<string, unknown>): AccessTokenClaims {
  const text = (k: string) => (typeof payload[k] === 'string' ? (payload[k] as string) : undefined);
  const orNull = (k: string) => (payload[k] === null || payload[k] === undefined ? null : text(k));
  const { sub, rsub, sessionHandle, refreshTokenHash1, tId } = {
    sub: text('sub'),
    rsub: text('rsub'),
    sessionHandle: text('sessionHandle'),
    refreshTokenHash1: text('refreshTokenHash1'),
    tId: text('tId'),
  };
  const parent = orNull('parentRefreshTokenHash1');
  const antiCsrf = orNull('antiCsrfToken');
  if (
    sub === undefined ||
    rsub === undefined ||
    sessionHandle === undefined ||
    refreshTokenHash1 === undefined ||
    tId === undefined ||
    typeof payload.exp !== 'number' ||
    typeof payload.iat !== 'number' ||
    parent === undefined ||
    antiCsrf === undefined
  ) {
    throw new InvalidAccessTokenError(
      'Access token does not contain all the information. Maybe the structure has changed?',
    );
  }
  const userData: JsonObject = {};
  for (const [k, v] of Object.entries(payload)) {
    if (!(PROTECTED_CLAIMS as readonly string[]).includes(k)) userData[k] = v;
  }
  return {
    sessionHandle,
    userId: sub,
    recipeUserId: rsub,
    tenantId: tId,
    refreshTokenHash1,
    parentRefreshTokenHash1: parent,
    antiCsrfToken: antiCsrf,
    expiry: payload.exp * 1000,
    createdTime: payload.iat * 1000,
    userData,
  };
}

/** What a refresh token carries (sealed inside it). */
export interface RefreshTokenContent {
  readonly sessionHandle: string;
  readonly tenantId: string;
  readonly recipeUserId: string;
  readonly parentRefreshTokenHash1: string | null;
  readonly antiCsrfToken: string | null;
}

const REFRESH_PREFIX = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const refreshAad = (appId: string) => Buffer.from(`refresh-token\u0000${appId}`, 'utf8');

/** A new refresh token for `content`, sealed under the app's refresh-token key. */
export function sealRefreshToken(appId: string, key: Uint8Array, content: RefreshTokenContent): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(refreshAad(appId));
  const body = JSON.stringify({
    h: content.sessionHandle,
    t: content.tenantId,
    u: content.recipeUserId,
    p: content.parentRefreshTokenHash1,
    a: content.antiCsrfToken,
    n: randomUUID(),
  });
  const sealed = Buffer.concat([iv, cipher.update(body, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${REFRESH_PREFIX}.${sealed.toString('base64url')}`;
}

/** What a refresh token of this app carries, or undefined when it is not one (altered, another app's, garbage). */
export function openRefreshToken(appId: string, key: Uint8Array, token: string): RefreshTokenContent | undefined {
  const [prefix, data, ...rest] = token.split('.');
  if (prefix !== REFRESH_PREFIX || data === undefined || rest.length > 0) return undefined;
  const bytes = Buffer.from(data, 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES + 2) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(refreshAad(appId));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const text = Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const handle = str(parsed.h);
    const tenantId = str(parsed.t);
    const user = str(parsed.u);
    if (handle === undefined || tenantId === undefined || user === undefined) return undefined;
    return {
      sessionHandle: handle,
      tenantId,
      recipeUserId: user,
      parentRefreshTokenHash1: str(parsed.p) ?? null,
      antiCsrfToken: str(parsed.a) ?? null,
    };
  } catch {
    return undefined;
  }
}
