import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { RouteDefinition } from '#functions/routes.js';
import { handlerModulePath } from './bundles.js';
import { createRouter, type RawRequest, type Router, toGatewayEvent } from './router.js';
import { FunctionTimeoutError, functionTimeoutSeconds, localContext, withinTimeout } from './timeouts.js';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2 | string>;

const handlers = new Map<string, Promise<Handler>>();

/**
 * Serves a route with `handler` instead of importing its module into this thread (the hashing
 * routes run in worker threads, see hashing-routes.ts).
 */
export function useHandler(routeId: string, handler: Handler): void {
  handlers.set(routeId, Promise.resolve(handler));
}

/** Imports a manifest entry's handler module (source or bundle, see bundles.ts) once, as Lambda would at cold start. */
export function loadHandler(route: RouteDefinition): Promise<Handler> {
  let loaded = handlers.get(route.id);
  if (!loaded) {
    loaded = Promise.resolve()
      .then(() => import(pathToFileURL(handlerModulePath(route)).href))
      .then((module: { handler?: Handler }) => {
        if (typeof module.handler !== 'function') throw new Error(`${route.handler} does not export handler`);
        return module.handler;
      });
    handlers.set(route.id, loaded);
  }
  return loaded;
}

export interface DispatchResult {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Serves one HTTP request the way API Gateway + Lambda would: route selection, a payload-2.0
 * event, the real handler, and the structured result turned back into a response. A handler still
 * running at the function's timeout fails the request with {@link FunctionTimeoutError}.
 */
export async function dispatch(router: Router, request: RawRequest): Promise<DispatchResult> {
  const path = request.url.split('?', 1)[0] ?? '/';
  const match = router.match(request.method, path);
  if (!match)
    return { statusCode: 404, headers: { 'content-type': 'application/json' }, body: '{"message":"Not Found"}' };
  const handler = await loadHandler(match.route);
  const timeoutSeconds = functionTimeoutSeconds(match.route.timeoutSeconds);
  const context = localContext(match.route.id, timeoutSeconds * 1000, match.route.memoryMb ?? 1024);
  // The handler's load took some of the function's time; the message names the setting, as Lambda's.
  const result = await withinTimeout(
    handler(toGatewayEvent(request, match), context),
    context.getRemainingTimeInMillis(),
    timeoutSeconds,
  );
  if (typeof result === 'string')
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: result };
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k.toLowerCase()] = String(v);
  const body =
    result.body === undefined
      ? ''
      : result.isBase64Encoded
        ? Buffer.from(result.body, 'base64').toString('utf8')
        : result.body;
  return { statusCode: result.statusCode ?? 200, headers, body };
}

export { createRouter };
