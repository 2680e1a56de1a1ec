import { describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE_PATH, type HttpMethod, ROUTES, type RouteDefinition } from '#functions/routes.js';
import { createRouter, type RouteMatch, toGatewayEvent } from '../../bin/local/router.js';

function route(id: string, method: HttpMethod, path: string): RouteDefinition {
  return { id, method, path, handler: `functions/http/${id}/handler.ts`, access: {} };
}

const fallback = route('fallback', 'ANY', DEFAULT_ROUTE_PATH);

describe('route selection (API Gateway precedence)', () => {
  const router = createRouter([
    fallback,
    route('recipe-role', 'GET', '/recipe/role'),
    route('role', 'GET', '/role'),
    route('thing-any', 'ANY', '/thing'),
    route('thing-get', 'GET', '/thing'),
  ]);

  it('prefers a literal segment over a {param} segment', () => {
    // `/recipe/role` also matches `/{s1}/role` with s1 = recipe: the literal template must win.
    const match = router.match('GET', '/recipe/role');
    expect(match?.route.id).toBe('recipe-role');
    expect(match?.routeKey).toBe('GET /recipe/role');
    expect(match?.pathParameters).toEqual({});
  });

  it('falls back to the parameter template when the literal one does not match', () => {
    const match = router.match('GET', '/tenant-1/role');
    expect(match?.route.id).toBe('role');
    expect(match?.routeKey).toBe('GET /{s1}/role');
    expect(match?.pathParameters).toEqual({ s1: 'tenant-1' });
  });

  it('prefers a specific method over ANY, and uses ANY for other methods', () => {
    expect(router.match('GET', '/thing')?.route.id).toBe('thing-get');
    expect(router.match('get', '/thing')?.route.id).toBe('thing-get');
    expect(router.match('POST', '/thing')?.route.id).toBe('thing-any');
    expect(router.match('POST', '/thing')?.routeKey).toBe('ANY /thing');
  });

  it('sends unmatched paths and methods to $default', () => {
    for (const [method, path] of [
      ['GET', '/nowhere'],
      ['GET', '/'],
      ['GET', '/hello'],
      ['POST', '/recipe/role'],
      ['GET', '/a/b/c/role'],
    ] as const) {
      const match = router.match(method, path);
      expect(match?.route.id, `${method} ${path}`).toBe('fallback');
      expect(match?.routeKey).toBe('$default');
      expect(match?.pathParameters).toEqual({});
    }
  });

  it('matches nothing when there is no $default route', () => {
    expect(createRouter([route('role', 'GET', '/role')]).match('GET', '/other')).toBeUndefined();
  });

  it('ignores empty segments and a trailing slash, like splitting the path', () => {
    expect(router.match('GET', '/recipe/role/')?.route.id).toBe('recipe-role');
  });
});

describe('prefix variants of the real manifest', () => {
  const router = createRouter(ROUTES);
  const api = '/recipe/multitenancy/app/list/v2';

  it('serves P, /{s1}P and /{s1}/{s2}P with the right path parameters', () => {
    expect(router.match('GET', api)).toMatchObject({
      route: { id: 'app-list-v2' },
      routeKey: `GET ${api}`,
      pathParameters: {},
    });
    expect(router.match('GET', `/appid-acme${api}`)).toMatchObject({
      route: { id: 'app-list-v2' },
      routeKey: `GET /{s1}${api}`,
      pathParameters: { s1: 'appid-acme' },
    });
    expect(router.match('GET', `/appid-acme/t1${api}`)).toMatchObject({
      route: { id: 'app-list-v2' },
      routeKey: `GET /{s1}/{s2}${api}`,
      pathParameters: { s1: 'appid-acme', s2: 't1' },
    });
  });

  it('does not accept a third prefix segment', () => {
    expect(router.match('GET', `/a/b/c${api}`)?.routeKey).toBe('$default');
  });

  it('keeps versioned and legacy paths apart', () => {
    expect(router.match('PUT', '/recipe/multitenancy/app/v2')?.route.id).toBe('app-put-v2');
    expect(router.match('PUT', '/recipe/multitenancy/app')?.route.id).toBe('app-put');
    expect(router.match('PUT', '/t1/recipe/multitenancy/app')).toMatchObject({
      route: { id: 'app-put' },
      pathParameters: { s1: 't1' },
    });
  });

  it('percent-decodes parameters and tolerates malformed escapes', () => {
    expect(router.match('GET', `/appid-a%2Db${api}`)?.pathParameters).toEqual({ s1: 'appid-a-b' });
    expect(router.match('GET', `/bad%E0%A4%A${api}`)?.pathParameters).toEqual({ s1: 'bad%E0%A4%A' });
  });

  it('lists three route keys per tenant entry, two per app-specific one, plus $default', () => {
    const keys = router.routeKeys();
    expect(keys).toContain(`GET ${api}`);
    expect(keys).toContain(`GET /{s1}${api}`);
    expect(keys).toContain(`GET /{s1}/{s2}${api}`);
    expect(keys).toContain('GET /{s1}/recipe/roles');
    expect(keys).not.toContain('GET /{s1}/{s2}/recipe/roles');
    expect(keys.filter((k) => k === DEFAULT_ROUTE_PATH)).toHaveLength(1);
    const appScoped = ROUTES.filter((r) => r.scope === 'app').length;
    expect(appScoped).toBeGreaterThan(0);
    expect(keys).toHaveLength((ROUTES.length - 1 - appScoped) * 3 + appScoped * 2 + 1);
  });

  it('sends an app-specific API behind two prefix segments to $default, one segment to the route', () => {
    // `/recipe/roles` is app-specific (scope 'app'): the fallback answers `/appid-<app>/<tenant>` for it.
    expect(router.match('GET', '/appid-acme/t1/recipe/roles')?.routeKey).toBe(DEFAULT_ROUTE_PATH);
    expect(router.match('GET', '/appid-acme/public/recipe/roles')?.routeKey).toBe(DEFAULT_ROUTE_PATH);
    for (const path of ['/recipe/roles', '/appid-acme/recipe/roles', '/t1/recipe/roles', '/public/recipe/roles']) {
      expect(router.match('GET', path)?.route.id).toBe('roles-list');
    }
  });
});

describe('API Gateway v2 event', () => {
  const match: RouteMatch = {
    route: route('role', 'PUT', '/role'),
    routeKey: 'PUT /{s1}/role',
    pathParameters: { s1: 'appid-x' },
  };

  it('carries the route, raw path, lower-cased headers and query parameters', () => {
    const event = toGatewayEvent(
      {
        method: 'put',
        url: '/appid-x/role?a=1&b=two%20words&a=3',
        headers: {
          'Content-Type': 'application/json',
          'X-Custom': ['p', 'q'],
          Host: 'localhost:3567',
          skipped: undefined,
        },
        body: Buffer.from('{"x":1}'),
        sourceIp: '10.0.0.1',
      },
      match,
    );
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('PUT /{s1}/role');
    expect(event.rawPath).toBe('/appid-x/role');
    expect(event.rawQueryString).toBe('a=1&b=two%20words&a=3');
    expect(event.headers).toEqual({ 'content-type': 'application/json', 'x-custom': 'p,q', host: 'localhost:3567' });
    expect(event.queryStringParameters).toEqual({ a: '1,3', b: 'two words' });
    expect(event.pathParameters).toEqual({ s1: 'appid-x' });
    expect(event.body).toBe('{"x":1}');
    expect(event.isBase64Encoded).toBe(false);
    expect(event.requestContext.http).toMatchObject({ method: 'PUT', path: '/appid-x/role', sourceIp: '10.0.0.1' });
    expect(event.requestContext.routeKey).toBe('PUT /{s1}/role');
    expect(event.requestContext.domainName).toBe('localhost:3567');
    expect(event.requestContext.stage).toBe('$default');
    expect(typeof event.requestContext.requestId).toBe('string');
  });

  it('omits absent query parameters, path parameters and body', () => {
    const event = toGatewayEvent(
      { method: 'GET', url: '/hello', headers: {} },
      { route: fallback, routeKey: '$default', pathParameters: {} },
    );
    expect(event.rawQueryString).toBe('');
    expect(event.queryStringParameters).toBeUndefined();
    expect(event.pathParameters).toBeUndefined();
    expect(event.body).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
  });

  it('keeps a "?" inside the query string', () => {
    const event = toGatewayEvent({ method: 'GET', url: '/x?q=a?b', headers: {} }, match);
    expect(event.rawPath).toBe('/x');
    expect(event.rawQueryString).toBe('q=a?b');
    expect(event.queryStringParameters).toEqual({ q: 'a?b' });
  });

  it('base64-encodes a body sent with Content-Encoding', () => {
    const gzipped = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe]);
    const event = toGatewayEvent(
      { method: 'POST', url: '/role', headers: { 'Content-Encoding': 'gzip' }, body: gzipped },
      match,
    );
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body ?? '', 'base64')).toEqual(gzipped);
  });
});
