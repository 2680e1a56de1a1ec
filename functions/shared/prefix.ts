/**
 * The core's path-prefix grammar (docs/reference-behaviour.md "Path prefixes"): `[/appid-<appId>][/<tenantId>]<apiPath>`,
 * case-insensitive. API Gateway hands us the prefix as up to two whole path segments; this is
 * the single place that turns them into (appId, tenantId).
 */
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { BadRequestError } from './errors.js';
import { ID_LIMITS } from './id-limits.js';

const RESERVED_TENANT_SEGMENTS = new Set(['recipe', 'config', 'users', 'hello']);
const APP_SEGMENT = /^appid-([a-z0-9-]*)$/;
const TENANT_SEGMENT = /^[a-z0-9-]+$/;

export interface ResolvedPrefix {
  readonly appId: string;
  readonly tenantId: string;
}

/**
 * Returns undefined when the segments do not fit the grammar (the core answers 404 `Not found`).
 * An app or tenant id longer than any stored one (ID_LIMITS) → 400, before anything is read.
 */
export function resolvePrefix(segments: readonly (string | undefined)[]): ResolvedPrefix | undefined {
  const resolved = resolveSegments(segments);
  if (resolved && resolved.appId.length > ID_LIMITS.appId) {
    throw new BadRequestError(`The appId in the path is too long. Max length is ${ID_LIMITS.appId}.`);
  }
  if (resolved && resolved.tenantId.length > ID_LIMITS.tenantId) {
    throw new BadRequestError(`The tenantId in the path is too long. Max length is ${ID_LIMITS.tenantId}.`);
  }
  return resolved;
}

function resolveSegments(segments: readonly (string | undefined)[]): ResolvedPrefix | undefined {
  const parts = segments.filter((s): s is string => s !== undefined && s !== '').map((s) => s.toLowerCase());
  if (parts.length > 2) return undefined;
  let appId = PUBLIC_TENANT_ID;
  let rest = parts;
  const first = parts[0];
  if (first !== undefined) {
    const appMatch = APP_SEGMENT.exec(first);
    if (appMatch) {
      appId = appMatch[1] === '' || appMatch[1] === undefined ? PUBLIC_TENANT_ID : appMatch[1];
      rest = parts.slice(1);
    } else if (parts.length === 2) {
      return undefined;
    }
  }
  if (rest.length === 0) return { appId, tenantId: PUBLIC_TENANT_ID };
  const tenantSegment = rest[0] as string;
  if (rest.length > 1 || !TENANT_SEGMENT.test(tenantSegment) || RESERVED_TENANT_SEGMENTS.has(tenantSegment)) {
    return undefined;
  }
  return { appId, tenantId: tenantSegment };
}
