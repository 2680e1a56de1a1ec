import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { httpHandler } from '#functions/http/pipeline.js';
import { errorToHttp } from '#functions/http/responses.js';
import { DEFAULT_ROUTE_PATH, prefixedPaths, ROUTES } from '#functions/routes.js';
import { AppOrTenantNotFoundError, MethodNotAllowedError, NotFoundError } from '#functions/shared/errors.js';
import { resolvePrefix } from '#functions/shared/prefix.js';
import { requestBudget, withinBudget } from '#functions/wiring/budget.js';
import { loadTenantPair } from '#functions/wiring/request.js';

const TEMPLATES = ROUTES.filter((r) => r.path !== DEFAULT_ROUTE_PATH).flatMap((r) =>
  prefixedPaths(r).map((t) => t.split('/').filter((s) => s !== '')),
);

/** App-specific APIs, whose `/<s1>/<s2>` form is no gateway route (functions/routes.ts gatewayPaths). */
const APP_SCOPED = ROUTES.filter((r) => r.scope === 'app').map((r) => ({
  method: r.method,
  segments: r.path.split('/').filter((s) => s !== ''),
}));

/**
 * What such a route answers before it runs, through the same pipeline steps in the same order: a
 * prefix that does not fit (404), the API key (401), the body (400/413/415), the `cdi-version`
 * header (400), then a non-public tenant at CDI ≥ 5.0 (403 `Only public tenantId can call this
 * app specific API`). Past those checks the route itself would run, which the fallback cannot:
 * the public tenant named explicitly (`/appid-<app>/public/...`), or a tenant at CDI < 5.0, gets
 * 404 `Not found` (docs/reference-behaviour.md "Path prefixes").
 */
const appScopedChecks = httpHandler({
  route: { id: 'fallback', scope: 'app', exists: 'never' },
  run: () => {
    throw new NotFoundError();
  },
});

/** Percent-decodes a prefix segment as API Gateway does for path parameters; a malformed escape stays as sent. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The two prefix segments when the path is an app-specific API's path (same method) behind two of them. */
function appScopedUnderTwoSegments(method: string, rawPath: string): { s1: string; s2: string } | undefined {
  const parts = rawPath.split('/').filter((s) => s !== '');
  const [s1, s2, ...rest] = parts;
  if (s1 === undefined || s2 === undefined) return undefined;
  const served = APP_SCOPED.some(
    (r) => r.method === method && r.segments.length === rest.length && r.segments.every((s, i) => s === rest[i]),
  );
  return served ? { s1: decodeSegment(s1), s2: decodeSegment(s2) } : undefined;
}

function segmentsOf(rawPath: string): string[] {
  return rawPath
    .toLowerCase()
    .split('/')
    .filter((s) => s !== '');
}

/** Whether some route serves this path with another method (the core answers 405 then). */
function knownPath(segments: readonly string[]): boolean {
  return TEMPLATES.some(
    (t) => t.length === segments.length && t.every((s, i) => s.startsWith('{') || s === segments[i]),
  );
}

/**
 * API Gateway's `$default` route: an app-specific API behind two prefix segments gets that API's
 * checks (appScopedChecks); `/` and `/hello` (under any prefix, no API key) answer
 * `Hello` — `/<tenant>` and `/appid-<app>/<tenant>` count as such roots, so an unknown app there
 * is a 400 and an unknown tenant a 404, as in the core; a known path with another method
 * answers 405; anything else 404 `Not found`.
 */
export async function handler(
  event: APIGatewayProxyEventV2,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<APIGatewayProxyResultV2> {
  const method = event.requestContext?.http?.method?.toUpperCase() ?? 'GET';
  const prefix = appScopedUnderTwoSegments(method, event.rawPath ?? '/');
  // The pipeline keeps its own time budget.
  if (prefix) return appScopedChecks({ ...event, pathParameters: { ...event.pathParameters, ...prefix } }, context);
  // The request pipeline's budget (functions/wiring/budget.ts): a silent table answers 503 in time.
  return withinBudget(requestBudget(context?.getRemainingTimeInMillis?.()), () => answer(event));
}

async function answer(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyResultV2> {
  try {
    const segments = segmentsOf(event.rawPath ?? '/');
    if (knownPath(segments)) throw new MethodNotAllowedError();
    const last = segments.at(-1);
    const prefixLength = last === 'hello' ? segments.length - 1 : segments.length;
    const prefix = prefixLength <= 2 ? resolvePrefix(segments.slice(0, prefixLength)) : undefined;
    if (prefix) {
      const { app, tenant } = await loadTenantPair(prefix.appId, prefix.tenantId);
      if (!app) throw new AppOrTenantNotFoundError(prefix.appId, prefix.tenantId);
      if (!tenant) throw new NotFoundError();
      return { statusCode: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Hello\n' };
    }
    throw new NotFoundError();
  } catch (error) {
    return errorToHttp(error, { route: 'fallback' });
  }
}
