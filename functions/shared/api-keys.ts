import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from './errors.js';

type Headers = Readonly<Record<string, string | undefined>>;

/** The key a caller presented: header `api-key`, else `Authorization` with an optional `Bearer ` prefix. */
function presentedApiKey(headers: Headers): string | undefined {
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
 * Throws 401 `Invalid API key` unless the presented key's SHA-256 equals one of the configured
 * keys' digests (apps' keys are stored only as digests; the base keys are digested when the config
 * is resolved). No configured key means the core is open. Digests are compared in constant time,
 * so neither the keys' contents nor their lengths leak through timing.
 */
export function checkApiKey(configuredDigests: readonly Uint8Array[], headers: Headers): void {
  if (configuredDigests.length === 0) return;
  const presented = presentedApiKey(headers);
  if (presented === undefined || presented === '') throw new UnauthorizedError();
  const presentedDigest = digest(presented);
  let matched = false;
  for (const configured of configuredDigests) {
    // Keep comparing after a match so the time taken does not depend on which key matched.
    if (configured.length === presentedDigest.length && timingSafeEqual(presentedDigest, configured)) matched = true;
  }
  if (!matched) throw new UnauthorizedError();
}
