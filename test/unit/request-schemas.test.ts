/**
 * One schema per route: each handler parses its request with the schemas the registry
 * (bin/openapi/request-schemas.ts) names for its route, and the API description's request side
 * (docs/openapi/openapi.yaml: request body, required fields, query parameters) is exactly those
 * schemas' JSON Schema — the description restates nothing by hand for these routes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE_PATH, ROUTES } from '#functions/routes.js';
import { requestJsonSchema } from '#functions/shared/request-schema.js';
import { loadDescription } from '../../bin/local/openapi.js';
import { REQUEST_SCHEMAS } from '../../bin/openapi/request-schemas.js';
import { REPO_ROOT } from '../../lib/constants.js';
import { templateOf } from '../helpers/openapi.js';

const description = loadDescription() as any;
const routes = ROUTES.filter((r) => r.path !== DEFAULT_ROUTE_PATH);

describe('request schemas', () => {
  it("are the ones each handler declares (and only those routes' handlers declare any)", async () => {
    const mismatches: string[] = [];
    for (const route of routes) {
      const { handler } = (await import(join(REPO_ROOT, route.handler))) as { handler: { request?: unknown } };
      const entry = REQUEST_SCHEMAS[route.id];
      if (handler.request === undefined && entry === undefined) continue;
      const declared = handler.request as { body?: unknown; query?: unknown } | undefined;
      if (declared?.body !== entry?.body || declared?.query !== entry?.query) mismatches.push(route.id);
    }
    expect(mismatches).toEqual([]);
    expect(Object.keys(REQUEST_SCHEMAS).filter((id) => !routes.some((r) => r.id === id))).toEqual([]);
  }, 120_000); // imports every handler module

  it("give the description's request body and query parameters, under every prefix form", () => {
    const entries = Object.entries(REQUEST_SCHEMAS);
    expect(entries.length).toBeGreaterThan(0);
    for (const [id, schemas] of entries) {
      const route = routes.find((r) => r.id === id);
      if (!route) throw new Error(`no route ${id}`);
      for (const form of ['bare', 'app', 'tenant', 'app-tenant'] as const) {
        const op = description.paths[templateOf(form, route.path)][route.method.toLowerCase()];
        const body = op.requestBody?.content?.['application/json']?.schema;
        expect(body, `${id} ${form}`).toEqual(schemas.body ? requestJsonSchema(schemas.body) : undefined);
        const query = (op.parameters ?? []).filter((p: any) => p.in === 'query');
        const expected = schemas.query ? requestJsonSchema(schemas.query) : { properties: {}, required: [] };
        const required = new Set((expected.required as string[] | undefined) ?? []);
        expect(
          query.map((p: any) => ({ name: p.name, required: p.required === true, schema: p.schema })),
          `${id} ${form}`,
        ).toEqual(
          Object.entries(expected.properties as Record<string, unknown>).map(([name, schema]) => ({
            name,
            required: required.has(name),
            schema,
          })),
        );
      }
    }
  });

  it('are declared by every route that reads a body or query, but the routes still read by hand', () => {
    const byHand = routes
      .filter((route) => {
        const source = readFileSync(join(REPO_ROOT, route.handler), 'utf8');
        return /\n {2}input: /.test(source) && !/\n {2}request: \{/.test(source);
      })
      .map((route) => route.id)
      .sort();
    expect(byHand).toEqual([...STILL_READ_BY_HAND].sort());
  });
});

/**
 * Routes whose handlers still read their input by hand (functions/shared/input.ts and the features'
 * readers), with operations.ts writing their request shapes: a request shaped by the CDI version
 * or a header (recipe-user-put, jwt, sessions, tenants), an early answer between two fields
 * (dashboard user create and update), a body passed through to the domain (OAuth2 client create and
 * update, bulk import), or not converted yet. This list only shrinks.
 */
const STILL_READ_BY_HAND = [
  'app-put',
  'app-put-v2',
  'app-remove',
  'bulk-import-users-add',
  'bulk-import-users-count',
  'bulk-import-users-list',
  'bulk-import-users-remove',
  'dashboard-user-create',
  'dashboard-user-update',
  'jwt-create',
  'jwt-data-put',
  'oauth-client-create',
  'oauth-client-update',
  'oauth-clients-list',
  'passwordless-code-check',
  'passwordless-code-consume',
  'passwordless-code-create',
  'passwordless-code-remove',
  'passwordless-codes-list',
  'passwordless-codes-remove',
  'recipe-user-put',
  'session-create',
  'session-data-put',
  'session-get',
  'session-refresh',
  'session-regenerate',
  'session-remove',
  'session-user',
  'session-verify',
  'tenant-put',
  'tenant-put-v2',
  'tenant-remove',
  'tenant-user-add',
  'tenant-user-remove',
  'thirdparty-config-put',
  'thirdparty-config-remove',
  'thirdparty-signinup',
];
