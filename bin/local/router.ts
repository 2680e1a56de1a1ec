import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { DEFAULT_ROUTE_PATH, gatewayPaths, type RouteDefinition } from '#functions/routes.js';

/**
 * The local equivalent of API Gateway's route selection for an HTTP API: templates are compared
 * segment by segment, a literal segment beats a `{param}` segment, a specific method beats `ANY`,
 * and whatever matches nothing goes to the `$default` route.
 */
interface CompiledRoute {
  readonly route: RouteDefinition;
  readonly template: string;
  readonly segments: readonly { readonly literal?: string; readonly param?: string }[];
}

export interface RouteMatch {
  readonly route: RouteDefinition;
  readonly routeKey: string;
  readonly pathParameters: Record<string, string>;
}

export interface Router {
  match(method: string, rawPath: string): RouteMatch | undefined;
  /** Every (method, template) the router serves, as API Gateway route keys. */
  routeKeys(): string[];
}

function compile(route: RouteDefinition, template: string): CompiledRoute {
  const segments = template
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s }));
  return { route, template, segments };
}

/** Negative when a should win over b. */
function precedence(a: CompiledRoute, b: CompiledRoute): number {
  for (let i = 0; i < a.segments.length; i++) {
    const aLiteral = a.segments[i]?.literal !== undefined;
    const bLiteral = b.segments[i]?.literal !== undefined;
    if (aLiteral !== bLiteral) return aLiteral ? -1 : 1;
  }
  if ((a.route.method === 'ANY') !== (b.route.method === 'ANY')) return a.route.method === 'ANY' ? 1 : -1;
  return 0;
}

/** Percent-decodes a path segment; a malformed escape is passed on as sent rather than failing the request. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function splitPath(rawPath: string): string[] {
  return rawPath.split('/').filter((s) => s !== '');
}

export function createRouter(routes: readonly RouteDefinition[]): Router {
  const compiled: CompiledRoute[] = [];
  let fallback: RouteDefinition | undefined;
  for (const route of routes) {
    if (route.path === DEFAULT_ROUTE_PATH) {
      fallback = route;
      continue;
    }
    for (const template of gatewayPaths(route)) compiled.push(compile(route, template));
  }
  return {
    match(method, rawPath) {
      const parts = splitPath(rawPath);
      const upper = method.toUpperCase();
      const candidates = compiled.filter(
        (c) =>
          c.segments.length === parts.length &&
          (c.route.method === 'ANY' || c.route.method === upper) &&
          c.segments.every((s, i) => s.param !== undefined || s.literal === parts[i]),
      );
      candidates.sort(precedence);
      const best = candidates[0];
      if (!best) {
        return fallback ? { route: fallback, routeKey: DEFAULT_ROUTE_PATH, pathParameters: {} } : undefined;
      }
      const pathParameters: Record<string, string> = {};
      best.segments.forEach((s, i) => {
        if (s.param !== undefined) pathParameters[s.param] = decodeSegment(parts[i] as string);
      });
      return { route: best.route, routeKey: `${best.route.method} ${best.template}`, pathParameters };
    },
    routeKeys() {
      const keys = compiled.map((c) => `${c.route.method} ${c.template}`);
      return fallback ? [...keys, DEFAULT_ROUTE_PATH] : keys;
    },
  };
}

export interface RawRequest {
  readonly method: string;
  /** Path with optional query string, as received. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body?: Buffer | undefined;
  readonly sourceIp?: string | undefined;
}

/** Builds the API Gateway HTTP API (payload 2.0) event API Gateway would send for this request. */
export function toGatewayEvent(request: RawRequest, match: RouteMatch): APIGatewayProxyEventV2 {
  const queryAt = request.url.indexOf('?');
  const rawPath = (queryAt === -1 ? request.url : request.url.slice(0, queryAt)) || '/';
  const rawQueryString = queryAt === -1 ? '' : request.url.slice(queryAt + 1);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  }
  const body = request.body && request.body.length > 0 ? request.body : undefined;
  // API Gateway base64-encodes bodies it cannot treat as text; an encoded body is such a case.
  const binary = body !== undefined && headers['content-encoding'] !== undefined;
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: match.routeKey,
    rawPath,
    rawQueryString,
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(Object.keys(match.pathParameters).length > 0 ? { pathParameters: match.pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: request.method.toUpperCase(),
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: match.routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(body !== undefined ? { body: body.toString(binary ? 'base64' : 'utf8') } : {}),
    isBase64Encoded: binary,
  };
}
