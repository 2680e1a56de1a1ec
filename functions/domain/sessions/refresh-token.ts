/**
 * A session's refresh tokens (docs/sessions.md "Tokens"): opaque to everyone but the core —
 * AES-256-GCM under the app's refresh-token key of what the core needs to find and check the
 * session (handle, tenant, user, parent hash, anti-CSRF token, a nonce), bound to the app. The core
 * stores only SHA-256(SHA-256(token)) (`sha256Hex` twice); an access token carries SHA-256(token).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

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
