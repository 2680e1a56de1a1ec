/**
 * One schema per route: each handler parses its request with the schemas the registry
 * (bin/openapi/request-schemas.ts) names for its route, and the API description's request side
 * (docs/openapi/openapi.yaml: request body, required fields, query parameters) is exactly those
 * schemas' JSON Schema — the description restates nothing by hand for these routes.
 */
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
});
