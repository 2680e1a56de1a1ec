import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { errorToHttp } from '#functions/http/responses.js';
import { DEFAULT_ROUTE_PATH, gatewayPaths, ROUTES } from '#functions/routes.js';
import { AppOrTenantNotFoundError, MethodNotAllowedError, NotFoundError } from '#functions/shared/errors.js';
import { resolvePrefix } from '#functions/shared/prefix.js';
import { requestBudget, withinBudget } from '#functions/wiring/budget.js';
import { loadTenantPair } from '#functions/wiring/request.js';

const TEMPLATES = ROUTES.filter((r) => r.path !== DEFAULT_ROUTE_PATH).flatMap((r) =>
  gatewayPaths(r).map((t) => t.split('/').filter((s) => s !== '')),
);

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
 * API Gateway's `$default` route: `/` and `/hello` (under any prefix, no API key) answer
 * `Hello` — `/<tenant>` and `/appid-<app>/<tenant>` count as such roots, so an unknown app there
 * is a 400 and an unknown tenant a 404, as in the core; a known path with another method
 * answers 405; anything else 404 `Not found`.
 */
export async function handler(
  event: APIGatewayProxyEventV2,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<APIGatewayProxyResultV2> {
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
