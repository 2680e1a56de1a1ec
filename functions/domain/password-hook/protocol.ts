/**
 * The password-migration hook's wire protocol (docs/password-migration-hook.md "Protocol"): the
 * request body, its signature header, and how an answer is read. Pure.
 *
 * The core sends `POST <password_migration_hook_url>` with `Content-Type: application/json`, the
 * body `{"appId","tenantId","userId","externalUserId","email","password","timestamp"}` and the
 * header `X-Auth-Core-Signature: t=<timestamp>,v1=<hex HMAC-SHA-256 of "<t>.<body>">`. Only two
 * answers count: `200` with `{"status":"PASSWORD_MATCH"}` or `{"status":"PASSWORD_MISMATCH"}`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Auth-Core-Signature';
/** The largest answer body read (bytes); a longer one means "unavailable". */
export const MAX_ANSWER_BYTES = 1024;
/**
 * The largest request body sent (bytes): a password that would make it longer is never sent and
 * is wrong (no legacy system keeps a password of kilobytes; the reference endpoint reads 16 KB).
 */
export const MAX_REQUEST_BYTES = 8192;
/** How old (or how far ahead) a signed timestamp a receiver should accept, in seconds. */
const REPLAY_WINDOW_SECONDS = 300;

export interface HookRequestFields {
  readonly appId: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly externalUserId: string | null;
  readonly email: string;
  readonly password: string;
  /** Unix seconds. */
  readonly timestamp: number;
}

/** The request body, keys in the documented order. */
export function hookRequestBody(fields: HookRequestFields): string {
  const { appId, tenantId, userId, externalUserId, email, password, timestamp } = fields;
  return JSON.stringify({ appId, tenantId, userId, externalUserId, email, password, timestamp });
}

/** Lower-case hex HMAC-SHA-256 with `secret` over `"<t>.<body>"`. */
function signatureDigest(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** The `X-Auth-Core-Signature` value of a body sent at `timestamp`. */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${signatureDigest(secret, timestamp, body)}`;
}

/** The parts of a signature header, or undefined when it is not `t=<digits>,v1=<64 hex>`. */
export function parseSignatureHeader(value: string): { timestamp: number; digest: string } | undefined {
  const match = /^t=(\d{1,15}),v1=([0-9a-f]{64})$/.exec(value.trim());
  if (!match) return undefined;
  return { timestamp: Number(match[1]), digest: match[2] as string };
}

/**
 * What a receiver checks (the reference legacy endpoint does exactly this): the header parses,
 * the timestamp is within {@link REPLAY_WINDOW_SECONDS} of `nowSeconds`, and the digest matches
 * the body as received (compared in constant time).
 * @internal The unit tests check the core's signature with it, as a receiver would.
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  body: string,
  nowSeconds: number,
): 'ok' | 'malformed' | 'stale' | 'mismatch' {
  const parsed = header === undefined ? undefined : parseSignatureHeader(header);
  if (!parsed) return 'malformed';
  if (Math.abs(nowSeconds - parsed.timestamp) > REPLAY_WINDOW_SECONDS) return 'stale';
  const expected = Buffer.from(signatureDigest(secret, parsed.timestamp, body), 'hex');
  return timingSafeEqual(expected, Buffer.from(parsed.digest, 'hex')) ? 'ok' : 'mismatch';
}

/** Why the legacy system counts as unavailable (logged and counted; never shown to the caller). */
type UnavailableCause =
  | 'timeout'
  | 'refused'
  | 'network'
  | 'redirect'
  | 'status'
  | 'too-large'
  | 'invalid-answer'
  | 'circuit-open'
  | 'not-configured'
  | 'forbidden-address';

export type HookVerdict =
  | { readonly kind: 'match' }
  | { readonly kind: 'mismatch' }
  | {
      readonly kind: 'unavailable';
      readonly cause: UnavailableCause;
      /** For cause `status`: the status the hook answered. */
      readonly status?: number;
    };

/**
 * Reads an answer: `200` with a JSON object whose `status` is `PASSWORD_MATCH` or
 * `PASSWORD_MISMATCH` (other fields ignored) counts; a 3xx is a redirect (never followed), any
 * other status, a body over {@link MAX_ANSWER_BYTES} or anything else means "unavailable".
 * `body` is undefined when it was longer than the limit.
 */
export function readHookAnswer(status: number, body: string | undefined): HookVerdict {
  if (status >= 300 && status < 400) return { kind: 'unavailable', cause: 'redirect' };
  if (status !== 200) return { kind: 'unavailable', cause: 'status', status };
  if (body === undefined || Buffer.byteLength(body, 'utf8') > MAX_ANSWER_BYTES) {
    return { kind: 'unavailable', cause: 'too-large' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { kind: 'unavailable', cause: 'invalid-answer' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { kind: 'unavailable', cause: 'invalid-answer' };
  }
  const verdict = (parsed as Record<string, unknown>).status;
  if (verdict === 'PASSWORD_MATCH') return { kind: 'match' };
  if (verdict === 'PASSWORD_MISMATCH') return { kind: 'mismatch' };
  return { kind: 'unavailable', cause: 'invalid-answer' };
}
