import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.js';
import { call, uniqueAppId } from '../helpers/core-client.js';

const notFoundText = (app: string, tenant: string) =>
  `AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, ${app}, ${tenant})`;

let appId: string;
beforeAll(async () => {
  appId = uniqueAppId('routing');
  await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId } });
  await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, { body: { tenantId: 't2' } });
  await call('PUT', '/recipe/multitenancy/tenant/v2', { body: { tenantId: 'route-t1' } });
});

const tenantOf = async (path: string) => {
  const reply = await call('GET', path);
  return reply.json?.status === 'OK' ? reply.json.tenantId : reply.status === 200 ? reply.json.status : reply.text;
};

describe('path prefixes (docs/reference-behaviour.md "Path prefixes")', () => {
  it('resolves app and tenant segments case-insensitively', async () => {
    expect(await tenantOf(`/appid-${appId.toUpperCase()}/recipe/multitenancy/tenant/v2`)).toBe('public');
    expect(await tenantOf(`/appid-${appId}/T2/recipe/multitenancy/tenant/v2`)).toBe('t2');
    expect(await tenantOf('/appid-Public/public/recipe/multitenancy/tenant/v2')).toBe('public');
    expect(await tenantOf('/appid-/route-t1/recipe/multitenancy/tenant/v2')).toBe('route-t1');
    expect(await tenantOf('/route-t1/recipe/multitenancy/tenant/v2')).toBe('route-t1');
    expect(await tenantOf('/recipe/multitenancy/tenant/v2')).toBe('public');
  });

  it.each([
    '/recipe/multitenancy/tenant/v2/t1',
    `/t2/appid-${'x'}/recipe/multitenancy/tenant/v2`,
    '/a/b/c/recipe/multitenancy/tenant/v2',
    '/random/path',
    '/appid-abc/appid-abc/appid-abc/recipe/multitenancy/tenant/v2/t1',
  ])('answers 404 Not found for %s', async (path) => {
    const reply = await call('GET', path);
    expect(reply.status).toBe(404);
    expect(reply.text).toBe('Not found');
  });

  it('answers 400 for an unknown app or tenant on a real API', async () => {
    const unknownApp = await call('GET', '/appid-nope-nope/recipe/multitenancy/tenant/list/v2');
    expect(unknownApp.status).toBe(400);
    expect(unknownApp.text).toBe(notFoundText('nope-nope', 'public'));
    const unknownTenant = await call('PUT', `/appid-${appId}/t9/recipe/multitenancy/tenant/v2`, { body: {} });
    expect(unknownTenant.status).toBe(400);
    expect(unknownTenant.text).toBe(notFoundText(appId, 't9'));
  });

  it('serves Hello at / and /hello under any known prefix, without an API key', async () => {
    for (const path of ['/', '/hello', `/appid-${appId}/hello`, `/appid-${appId}/t2/hello`, `/appid-${appId}`]) {
      const reply = await call('GET', path);
      expect(reply.status, path).toBe(200);
      expect(reply.text).toBe('Hello');
    }
    const unknownTenant = await call('GET', `/appid-${appId}/t9/hello`);
    expect([unknownTenant.status, unknownTenant.text]).toEqual([404, 'Not found']);
    const unknownApp = await call('GET', '/appid-nope-nope/hello');
    expect([unknownApp.status, unknownApp.text]).toEqual([400, notFoundText('nope-nope', 'public')]);
  });

  it('answers 405 for a known path with an unsupported method', async () => {
    const reply = await call('DELETE', '/recipe/multitenancy/app/v2');
    expect(reply.status).toBe(405);
    expect(reply.text).toBe('Method not supported');
  });
});

describe('API keys', () => {
  it('checks the app-level api_keys override', async () => {
    const keyed = uniqueAppId('keyed');
    const key = 'a-very-long-api-key-for-tests-0001';
    await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId: keyed, coreConfig: { api_keys: key } } });
    const path = `/appid-${keyed}/recipe/multitenancy/tenant/v2`;
    const none = await call('GET', path);
    expect(none.status).toBe(401);
    expect(none.text).toBe('Invalid API key');
    const wrong = await call('GET', path, { headers: { 'api-key': 'wrong-key-wrong-key-wrong' } });
    expect([wrong.status, wrong.text]).toEqual([401, 'Invalid API key']);
    expect(wrong.contentType).toContain('text/plain');
    expect((await call('GET', path, { headers: { 'api-key': key } })).json.status).toBe('OK');
    expect((await call('GET', path, { headers: { authorization: `Bearer ${key}` } })).json.status).toBe('OK');
    expect((await call('GET', path, { headers: { authorization: key } })).json.status).toBe('OK');
    expect((await call('GET', `/appid-${keyed}/hello`)).text).toBe('Hello');
    // The app's own keys apply to its other tenants too.
    const otherTenant = await call('GET', `/appid-${keyed}/t9/recipe/multitenancy/tenant/v2`);
    expect([otherTenant.status, otherTenant.text]).toEqual([401, 'Invalid API key']);
  });

  it('checks the key before the body is decoded: a caller without the key learns nothing from its body', async () => {
    const keyed = uniqueAppId('keyed');
    const key = 'a-very-long-api-key-for-tests-0002';
    await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId: keyed, coreConfig: { api_keys: key } } });
    const path = `/appid-${keyed}/recipe/role`;
    for (const rawBody of ['{"role":', 'not json at all', '']) {
      const refused = await call('PUT', path, { rawBody });
      expect(refused.status, rawBody).toBe(401);
      expect(refused.text).toBe('Invalid API key');
    }
    // Not valid gzip either: still the key first.
    const gzipped = await call('PUT', path, { rawBody: 'not gzip', headers: { 'content-encoding': 'gzip' } });
    expect([gzipped.status, gzipped.text]).toEqual([401, 'Invalid API key']);
    expect(gzipped.contentType).toContain('text/plain');
    // A well-formed body without the key changes nothing: the role does not exist afterwards.
    const unkeyedRole = await call('PUT', path, { body: { role: 'made-without-key' } });
    expect([unkeyedRole.status, unkeyedRole.text]).toEqual([401, 'Invalid API key']);
    const roles = await call('GET', `/appid-${keyed}/recipe/roles`, { headers: { 'api-key': key } });
    expect(roles.json).toEqual({ status: 'OK', roles: [] });
    // With the key, the body is decoded and refused as the core refuses it.
    const withKey = await call('PUT', path, { rawBody: '{"role":', headers: { 'api-key': key } });
    expect(withKey.status).toBe(400);
    expect(withKey.text).toBe('Invalid Json Input');

    // Whatever the body and its encoding: 401 without the key; with it, never a 5xx.
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
        ),
        fc.boolean(),
        async (rawBody, gzipHeader) => {
          const headers: Record<string, string> = gzipHeader ? { 'content-encoding': 'gzip' } : {};
          const refused = await call('PUT', path, { rawBody, headers });
          expect(refused.status).toBe(401);
          expect(refused.text).toBe('Invalid API key');
          const answered = await call('PUT', path, { rawBody, headers: { ...headers, 'api-key': key } });
          expect(answered.status).toBeLessThan(500);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses keys that are too short or have invalid characters', async () => {
    const short = await call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId: uniqueAppId(), coreConfig: { api_keys: 'short' } },
    });
    expect(short.text).toBe('Invalid core config: One of the API keys is too short. Please use at least 20 characters');
    const chars = await call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId: uniqueAppId(), coreConfig: { api_keys: 'abcdefghijklmnopqrstuvwxyz!' } },
    });
    expect(chars.text).toBe(
      "Invalid core config: Invalid characters in API key. Please only use '=', '-' and alpha-numeric (including capitals)",
    );
  });
});

describe('cdi-version header', () => {
  it.each([
    ['abc', 'cdi-version header is invalid'],
    ['5.3.0', 'cdi-version 5.3.0 not supported'],
    ['9.0', 'cdi-version 9.0 not supported'],
    ['1.0', 'cdi-version 1.0 not supported'],
  ])('refuses %s', async (version, message) => {
    const reply = await call('GET', '/recipe/multitenancy/tenant/v2', { headers: { 'cdi-version': version } });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(message);
  });

  it('honours the app maximum and minimum', async () => {
    const limited = uniqueAppId();
    await call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId: limited, coreConfig: { supertokens_max_cdi_version: '5.4', supertokens_min_cdi_version: '4.0' } },
    });
    const high = await call('GET', `/appid-${limited}/recipe/multitenancy/tenant/v2`, {
      headers: { 'cdi-version': '5.5' },
    });
    expect(high.text).toBe('cdi-version 5.5 not supported');
    const low = await call('GET', `/appid-${limited}/recipe/multitenancy/tenant/v2`, {
      headers: { 'cdi-version': '3.0' },
    });
    expect(low.text).toBe('cdi-version 3.0 is lower than the minimum allowed version 4.0');
    const versions = await call('GET', `/appid-${limited}/apiversion`);
    expect(versions.json.versions).toContain('5.4');
    expect(versions.json.versions).not.toContain('5.5');
  });
});

describe('GET /apiversion', () => {
  it('lists 5.4 with no status key, and is app specific', async () => {
    const reply = await call('GET', '/apiversion');
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.json)).toEqual(['versions']);
    expect(reply.json.versions).toContain('5.4');
    const fromTenant = await call('GET', `/appid-${appId}/t2/apiversion`);
    expect(fromTenant.status).toBe(403);
    expect(fromTenant.text).toBe('Only public tenantId can call this app specific API');
    const unknown = await call('GET', '/appid-nope-nope/apiversion');
    expect([unknown.status, unknown.text]).toEqual([400, notFoundText('nope-nope', 'public')]);
  });
});

/**
 * App-specific APIs have no `/appid-<app>/<tenant>` route on the gateway (functions/routes.ts
 * gatewayPaths, docs/deploying-aws.md "Route quota"): the fallback answers that form with the
 * route's own checks, in the route's order, and 404 where only the route could answer.
 */
describe('app-specific APIs behind /appid-<app>/<tenant> (answered by the fallback)', () => {
  const ONLY_PUBLIC: [number, string] = [403, 'Only public tenantId can call this app specific API'];
  const KEY = 'routing-fallback-own-key-0123';
  let keyed: string;
  beforeAll(async () => {
    keyed = uniqueAppId('routing-keyed');
    expect(
      (await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId: keyed, coreConfig: { api_keys: KEY } } }))
        .status,
    ).toBe(200);
    const tenant = await call('PUT', `/appid-${keyed}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: 't1' },
      headers: { 'api-key': KEY },
    });
    expect(tenant.status).toBe(200);
  });
  const answer = async (method: string, path: string, options: Parameters<typeof call>[2] = {}) => {
    const reply = await call(method, path, options);
    return [reply.status, reply.text];
  };

  it('refuses a non-public tenant (403) whatever the app, as the route does under one segment', async () => {
    expect(await answer('GET', `/appid-${appId}/t2/recipe/roles`)).toEqual(ONLY_PUBLIC);
    expect(await answer('GET', '/route-t1/recipe/roles')).toEqual(ONLY_PUBLIC);
    expect(await answer('POST', `/appid-${appId}/t2/recipe/role/remove`, { body: { role: 'r' } })).toEqual(ONLY_PUBLIC);
    // The route checks the tenant before the app's existence: an unknown app gets the 403 too.
    expect(await answer('GET', '/appid-nope-nope/t9/recipe/roles')).toEqual(ONLY_PUBLIC);
    expect(await answer('GET', '/t9/recipe/roles')).toEqual(ONLY_PUBLIC);
    expect(await answer('GET', `/appid-${appId}/t2/recipe/roles`, { headers: { 'cdi-version': '5.0' } })).toEqual(
      ONLY_PUBLIC,
    );
  });

  it('checks the API key, the body and the cdi-version header first, as the route does', async () => {
    const invalidKey = [401, 'Invalid API key'];
    expect(await answer('GET', `/appid-${keyed}/t1/recipe/roles`)).toEqual(invalidKey);
    expect(await answer('GET', `/appid-${keyed}/recipe/roles`)).toEqual(invalidKey);
    const withKey = { 'api-key': KEY };
    expect(await answer('GET', `/appid-${keyed}/t1/recipe/roles`, { headers: withKey })).toEqual(ONLY_PUBLIC);
    const badJson = { rawBody: '{', headers: withKey };
    expect(await answer('POST', `/appid-${keyed}/t1/recipe/role/remove`, badJson)).toEqual([400, 'Invalid Json Input']);
    expect(await answer('POST', `/appid-${keyed}/recipe/role/remove`, badJson)).toEqual([400, 'Invalid Json Input']);
    const badCdi = { headers: { ...withKey, 'cdi-version': '9.9' } };
    expect(await answer('GET', `/appid-${keyed}/t1/recipe/roles`, badCdi)).toEqual([
      400,
      'cdi-version 9.9 not supported',
    ]);
    expect(await answer('GET', `/appid-${keyed}/recipe/roles`, badCdi)).toEqual([400, 'cdi-version 9.9 not supported']);
  });

  it('answers 404 Not found where only the route could answer (docs/reference-behaviour.md "Path prefixes")', async () => {
    // The public tenant named explicitly: the route itself would run.
    expect(await answer('GET', `/appid-${appId}/public/recipe/roles`)).toEqual([404, 'Not found']);
    expect((await call('GET', `/appid-${appId}/recipe/roles`)).json.status).toBe('OK');
    expect((await call('GET', '/public/recipe/roles')).json.status).toBe('OK');
    // Below CDI 5.0 the route serves a tenant's path for its app.
    const cdi4 = { headers: { 'cdi-version': '4.0' } };
    expect(await answer('GET', `/appid-${appId}/t2/recipe/roles`, cdi4)).toEqual([404, 'Not found']);
    expect((await call('GET', '/route-t1/recipe/roles', cdi4)).json.status).toBe('OK');
  });

  it('answers 405 for another method and 404 for a prefix that does not fit', async () => {
    expect(await answer('DELETE', `/appid-${appId}/t2/recipe/roles`)).toEqual([405, 'Method not supported']);
    expect(await answer('GET', '/t1/t2/recipe/roles')).toEqual([404, 'Not found']);
    expect(await answer('GET', `/appid-${appId}/a_b/recipe/roles`)).toEqual([404, 'Not found']);
  });

  it('gives every app-specific API the answer its one-segment form gives for a non-public tenant', async () => {
    const appScoped = ROUTES.filter((r) => r.scope === 'app');
    const tenant = fc
      .stringMatching(/^[a-zA-Z0-9-]{1,20}$/)
      .filter((t) => !['public', 'recipe', 'config', 'users', 'hello'].includes(t.toLowerCase()))
      .filter((t) => !t.toLowerCase().startsWith('appid-'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...appScoped), tenant, async (route, t) => {
        const options = ['POST', 'PUT'].includes(route.method) ? { body: {} } : {};
        const viaFallback = await answer(route.method, `/appid-${appId}/${t}${route.path}`, options);
        expect(viaFallback).toEqual(ONLY_PUBLIC);
        expect(await answer(route.method, `/${t}${route.path}`, options)).toEqual(viaFallback);
      }),
      { numRuns: 40 },
    );
  });
});
