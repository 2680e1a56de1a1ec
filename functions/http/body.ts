/**
 * Request bodies: transport decoding with hard limits. A body is decoded only after the API key
 * was checked (the pipeline's step order), and never grows past a cap while it is decoded.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '#functions/shared/errors.js';

/** API Gateway HTTP API's request body limit (the local runtime answers 413 above it too). */
export const API_GATEWAY_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Lambda's synchronous invocation payload limit: the whole event, so a body sent as it is can
 * never be larger. It is also the cap on any other body once decompressed.
 */
export const LAMBDA_PAYLOAD_BYTES = 6 * 1024 * 1024;

/**
 * The cap on a staging request's body once decompressed (`POST /bulk-import/users`, for an app
 * that exists). A 10,000-user request is typically 3–5 MiB of JSON, and about 30 MiB with every
 * field of every user at its longest (three login methods, a role, a TOTP device; metadata
 * aside); 64 MiB leaves room for a few KB of metadata per user on top of that. Larger migrations
 * send fewer users per request.
 */
export const MAX_STAGING_BODY_BYTES = 64 * 1024 * 1024;

const inflate = promisify(gunzip);

/** The transport encodings of a `Content-Encoding` value: only gzip (also `x-gzip`) and identity are accepted. */
function isGzipped(contentEncoding: string | undefined): boolean {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return false;
  if (codings.length === 1 && (codings[0] === 'gzip' || codings[0] === 'x-gzip')) return true;
  throw new UnsupportedMediaTypeError('Unsupported Content-Encoding: only gzip and identity are accepted');
}

const tooLarge = (cap: number) =>
  new PayloadTooLargeError(
    `Request body too large: more than ${cap / (1024 * 1024)} MiB once decompressed` +
      (cap === MAX_STAGING_BODY_BYTES ? '; send fewer users per request' : ''),
  );

/**
 * The body's bytes without its transport encodings: base64 (API Gateway) and
 * `Content-Encoding: gzip` (which lets a 10,000-user request fit Lambda's payload limit).
 *
 * gzip is inflated by zlib chunk by chunk, and inflating stops with 413 as soon as the output
 * passes `cap`: a small body that inflates to gigabytes costs at most `cap` bytes of memory.
 * Another `Content-Encoding` → 415; a body that is not valid gzip → `invalid` (the caller's 400).
 */
export async function decodeBody(
  body: string | undefined,
  isBase64Encoded: boolean | undefined,
  contentEncoding: string | undefined,
  cap: number,
): Promise<Buffer | 'invalid'> {
  const gzipped = isGzipped(contentEncoding);
  const raw = body === undefined ? Buffer.alloc(0) : Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
  if (!gzipped) {
    if (raw.length > cap) throw tooLarge(cap);
    return raw;
  }
  try {
    return await inflate(raw, { maxOutputLength: cap });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(cap);
    return 'invalid';
  }
}
