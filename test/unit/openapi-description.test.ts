/**
 * The API description (docs/openapi/openapi.yaml) is what bin/openapi/build.ts makes of the route
 * manifest, and it describes exactly the manifest's routes: each under every prefix form the core
 * accepts, with the path parameters, API key and request bodies the handler needs — no route
 * missing, none invented.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DESCRIPTION_FILE, loadDescription } from '../../bin/local/openapi.js';
import {
  DEFAULT_PATHS,
  descriptionYaml,
  LOCAL_RUNTIME_PATHS,
  PREFIX_FORMS,
  routeNeedsOf,
} from '../../bin/openapi/build.js';
import { DEFAULT_ROUTE_PATH, ROUTES } from '../../functions/routes.js';
import { openApiValidator, templateOf } from '../helpers/openapi.js';

const description = loadDescription() as any;
const validator = openApiValidator(description);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** Every `METHOD template` the manifest implies, with its route id. */
function expectedOperations(): Map<string, string> {
  const out = new Map<string, string>();
  for (const route of ROUTES) {
    const paths = route.path === DEFAULT_ROUTE_PATH ? DEFAULT_PATHS : [route.path];
    const method = route.path === DEFAULT_ROUTE_PATH ? 'GET' : route.method;
    for (const path of paths) {
      for (const form of PREFIX_FORMS) out.set(`${method} ${templateOf(form.name, path)}`, route.id);
    }
  }
  for (const path of LOCAL_RUNTIME_PATHS) out.set(`GET ${path}`, 'local runtime');
  return out;
}

describe('the committed description', () => {
  it('is the one bin/openapi/build.ts generates (run `npm run openapi` after changing a route)', () => {
    expect(readFileSync(DESCRIPTION_FILE, 'utf8')).toBe(descriptionYaml());
  });

  it('is OpenAPI 3.1', () => {
    expect(description.openapi).toMatch(/^3\.1\.\d+$/);
  });

  it('has every manifest route under every prefix form, and nothing else', () => {
    const expected = expectedOperations();
    expect(new Set(validator.operations())).toEqual(new Set(expected.keys()));
    for (const [key, routeId] of expected) {
      if (routeId === 'local runtime') continue;
      const [method, template] = key.split(' ') as [string, string];
      const operation = description.paths[template][method.toLowerCase()];
      expect(operation['x-route-id'], key).toBe(routeId);
    }
  });

  it('declares every path parameter, with unique operation ids', () => {
    const ids = new Set<string>();
    for (const [template, item] of Object.entries<any>(description.paths)) {
      for (const method of METHODS.filter((m) => item[m])) {
        const op = validator.operationOf(method, template.replace(/\{appId\}/, 'a1').replace(/\{tenantId\}/, 't1'));
        expect(typeof op === 'string' ? op : op.template, `${method} ${template}`).toBe(template);
        const names = (item[method].parameters ?? [])
          .map((p: unknown) => validator.resolve(p))
          .filter((p: any) => p.in === 'path')
          .map((p: any) => p.name)
          .sort();
        expect(names, `${method} ${template}`).toEqual([...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort());
        expect(ids.has(item[method].operationId), item[method].operationId).toBe(false);
        ids.add(item[method].operationId);
      }
    }
  });

  it('asks for the API key exactly where the handler checks it, and for a JSON body on POST and PUT', () => {
    for (const route of ROUTES.filter((r) => r.path !== DEFAULT_ROUTE_PATH)) {
      const needs = routeNeedsOf(route);
      for (const form of PREFIX_FORMS) {
        const op = description.paths[templateOf(form.name, route.path)][route.method.toLowerCase()];
        // An app-specific API's app-and-tenant form is answered by the fallback, which checks the
        // key whatever the route would (docs/reference-behaviour.md "Path prefixes").
        const checksKey = !needs.noApiKey || (route.scope === 'app' && form.name === 'app-tenant');
        expect(op.security, route.id).toEqual(checksKey ? undefined : []);
        expect('401' in op.responses, route.id).toBe(checksKey);
        const body = op.requestBody?.content?.['application/json']?.schema;
        expect(body !== undefined, route.id).toBe(route.method === 'POST' || route.method === 'PUT');
      }
    }
    expect(description.components.securitySchemes.apiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'api-key',
    });
  });

  it("describes an app-specific API's app-and-tenant form as refusals only (no 200, 403 and 404)", () => {
    const appScoped = ROUTES.filter((r) => r.scope === 'app');
    expect(appScoped.length).toBeGreaterThan(0);
    for (const route of appScoped) {
      const responses = description.paths[templateOf('app-tenant', route.path)][route.method.toLowerCase()].responses;
      expect(Object.keys(responses), route.id).not.toContain('200');
      expect(Object.keys(responses), route.id).toEqual(expect.arrayContaining(['401', '403', '404']));
      const appForm = description.paths[templateOf('app', route.path)][route.method.toLowerCase()].responses;
      expect(Object.keys(appForm), route.id).toContain('200');
    }
  });

  it('tells the prefix forms apart by their parameters as the core does', () => {
    const path = (p: string) => {
      const op = validator.operationOf('POST', p);
      return typeof op === 'string' ? op : op.template;
    };
    expect(path('/recipe/signin')).toBe('/recipe/signin');
    expect(path('/appid-shop/recipe/signin')).toBe('/appid-{appId}/recipe/signin');
    // The core reads `AppId-` as `appid-` too; OpenAPI templates match case-sensitively (docs/api-description.md).
    expect(validator.operationOf('POST', '/AppId-Shop/recipe/signin')).toMatch(/no path template/);
    expect(path('/eu/recipe/signin')).toBe('/{tenantId}/recipe/signin');
    expect(path('/appid-shop/eu/recipe/signin')).toBe('/appid-{appId}/{tenantId}/recipe/signin');
    expect(path('/appid-shop/bulk-import/users')).toBe('/appid-{appId}/bulk-import/users');
    expect(validator.operationOf('GET', '/recipe/hello')).toMatch(/no path template/);
    expect(validator.operationOf('GET', `/${'t'.repeat(65)}/recipe/roles`)).toMatch(/no path template/);
  });
});

describe('the exchange validator of the contract test', () => {
  const json = { 'content-type': 'application/json; charset=utf-8' };
  const signIn = (status: number, headers: Record<string, string>, text: string) =>
    validator.validate({ method: 'POST', path: '/eu/recipe/signin', status, headers, text });

  it('accepts the answers the description documents', () => {
    expect(signIn(200, json, '{"status":"WRONG_CREDENTIALS_ERROR"}\n')).toEqual([]);
    expect(signIn(401, { 'content-type': 'text/plain; charset=utf-8' }, 'Invalid API key\n')).toEqual([]);
    expect(signIn(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '5' }, 'busy\n')).toEqual([]);
  });

  it('refuses an undocumented status name, a missing field, a wrong type, status or header', () => {
    expect(signIn(200, json, '{"status":"SOMETHING_ELSE_ERROR"}')).not.toEqual([]);
    expect(signIn(200, json, '{"status":"OK","recipeUserId":"u1"}')).not.toEqual([]);
    expect(signIn(200, { 'content-type': 'text/plain' }, 'OK')).not.toEqual([]);
    expect(signIn(404, { 'content-type': 'text/plain' }, 'Not found\n')).not.toEqual([]);
    expect(signIn(503, { 'content-type': 'text/plain; charset=utf-8' }, 'busy\n')).not.toEqual([]);
    expect(
      validator.validate({
        method: 'GET',
        path: '/.well-known/jwks.json',
        status: 200,
        headers: json,
        text: '{"keys":[{}]}',
      }),
    ).not.toEqual([]);
  });
});
