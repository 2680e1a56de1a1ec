import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from './errors.js';

type Headers = Readonly<Record<string, string | undefined>>;

/** The key a caller presented: header `api-key`, else `Authorization` with an optional `Bearer ` prefix. */
export function presentedApiKey(headers: Headers): string | undefined {
  const direct = headers['api-key'];
  if (direct !== undefined) return direct.trim();
  const authorization = headers.authorization;
  if (authorization === undefined) return undefined;
  const value = authorization.trim();
  return /^bearer /i.test(value) ? value.slice(7).trim() : value;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Throws 401 `Invalid API key` unless the presented key equals one of the configured keys.
 * No configured key means the core is open. Digests are compared in constant time, so neither
 * the keys' contents nor their lengths leak through timing.
 */
export function checkApiKey(configuredKeys: readonly string[], headers: Headers): void {
  if (configuredKeys.length === 0) return;
  const presented = presentedApiKey(headers);
  if (presented === undefined || presented === '') throw new UnauthorizedError();
  const presentedDigest = digest(presented);
  let matched = false;
  for (const key of configuredKeys) {
    // Keep comparing after a match so the time taken does not depend on which key matched.
    if (timingSafeEqual(presentedDigest, digest(key))) matched = true;
  }
  if (!matched) throw new UnauthorizedError();
}
