/**
 * OAuth2 client management's pure parts (functions/domain/oauth-clients/): Go durations, how a
 * body's fields are read and a client checked, the list's lenient query, and the use cases over an
 * in-memory store (the licence switch, ids and secrets, updates that meet a concurrent change),
 * with property tests that no body makes them fail other than with the core's 400.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalDuration,
  DurationError,
  formatGoDuration,
  parseGoDuration,
} from '#functions/domain/oauth-clients/durations.js';
import { checkClient, decodeClientFields, isOAuthError, newSettings } from '#functions/domain/oauth-clients/fields.js';
import type { OAuthClient } from '#functions/domain/oauth-clients/model.js';
import type { OAuthClientStore } from '#functions/domain/oauth-clients/ports.js';
import {
  createClient,
  getClient,
  listClients,
  OAUTH_DISABLED_MESSAGE,
  type OAuthClientDeps,
  parseCreateClient,
  parseListClients,
  parseUpdateClient,
  removeClient,
  updateClient,
} from '#functions/domain/oauth-clients/service.js';
import { BackpressureError, BadRequestError, CoreHttpError } from '#functions/shared/errors.js';
import { memoryOAuthClientStores } from '../helpers/memory-oauth-client-store.js';

describe('Go durations', () => {
  it.each([
    ['1h', '1h0m0s'],
    ['90m', '1h30m0s'],
    ['1.5h', '1h30m0s'],
    ['1h0m0s', '1h0m0s'],
    ['300ms', '300ms'],
    ['1500ms', '1.5s'],
    ['1us', '1µs'],
    ['1µs', '1µs'],
    ['1μs', '1µs'],
    ['2ns', '2ns'],
    ['1.0005ms', '1.0005ms'],
    ['0', '0s'],
    ['+0', '0s'],
    ['-1.5s', '-1.5s'],
    ['.5m', '30s'],
    ['5.s', '5s'],
    ['1h1m1s1ms', '1h1m1.001s'],
    ['2562047h47m16.854775807s', '2562047h47m16.854775807s'],
    ['-2562047h47m16.854775808s', '-2562047h47m16.854775808s'],
  ])('%s is %s', (text, canonical) => {
    expect(canonicalDuration(text)).toBe(canonical);
  });

  it.each([
    ['', "time: invalid duration ''"],
    ['h', "time: invalid duration 'h'"],
    ['.s', "time: invalid duration '.s'"],
    ['-', "time: invalid duration '-'"],
    ['10', "time: missing unit in duration '10'"],
    ['1d', "time: unknown unit 'd' in duration '1d'"],
    ['1h ', "time: unknown unit 'h ' in duration '1h '"],
    ['2562047h47m16.854775808s', "time: invalid duration '2562047h47m16.854775808s'"],
    ['9999999999999999999999h', "time: invalid duration '9999999999999999999999h'"],
  ])('%j is refused: %s', (text, message) => {
    expect(() => parseGoDuration(text)).toThrow(new DurationError(message));
  });

  it('reads back what it writes, for every duration a signed 64-bit count of nanoseconds holds', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (ns) => {
        expect(parseGoDuration(formatGoDuration(ns))).toBe(ns);
      }),
    );
  });

  it('never fails on any text other than with a DurationError', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.stringMatching(/^[-+]?([0-9]*\.?[0-9]*(ns|us|µs|ms|s|m|h|d)?){1,4}$/)),
        (text) => {
          try {
            expect(parseGoDuration(text)).toBeTypeOf('bigint');
          } catch (error) {
            expect(error).toBeInstanceOf(DurationError);
          }
        },
      ),
    );
  });
});

describe('reading and checking a client', () => {
  it('reads null as each field’s empty value and ignores fields it does not keep', () => {
    expect(
      decodeClientFields({
        clientName: null,
        redirectUris: null,
        grantTypes: ['a', null],
        metadata: null,
        implicitGrantIdTokenLifespan: null,
        jwks: { keys: [] },
        createdAt: 'yesterday',
      }),
    ).toEqual({
      clientName: '',
      redirectUris: null,
      grantTypes: ['a', ''],
      metadata: {},
      implicitGrantIdTokenLifespan: null,
    });
  });

  it('refuses metadata that is not an object (a JSON object in the SDK’s type)', () => {
    expect(decodeClientFields({ metadata: [1] })).toMatchObject({
      status: 'OAUTH_ERROR',
      errorDescription:
        'Unable to decode the request body: json: cannot unmarshal array into Go struct field Client.metadata of type object',
    });
  });

  it('applies the provider’s defaults and normalises CORS origins', () => {
    const settings = checkClient(newSettings({ allowedCorsOrigins: ['http://localhost:3000///'] }, false), undefined);
    expect(settings).toMatchObject({
      scope: 'offline_access offline openid',
      tokenEndpointAuthMethod: 'client_secret_basic',
      allowedCorsOrigins: ['http://localhost:3000'],
      audience: [],
    });
  });

  it('accepts absolute paths and custom schemes as redirect URIs, and matches logout URIs on scheme, host and port', () => {
    const ok = checkClient(
      newSettings(
        {
          redirectUris: ['/callback', 'com.example.app:/cb', 'http://localhost:3000/cb'],
          postLogoutRedirectUris: ['http://localhost:3000/other/path?x=1'],
        },
        false,
      ),
      undefined,
    );
    expect(isOAuthError(ok)).toBe(false);
    const wrongPort = checkClient(
      newSettings(
        { redirectUris: ['http://localhost:3000/cb'], postLogoutRedirectUris: ['http://localhost:3001/bye'] },
        false,
      ),
      undefined,
    );
    expect(wrongPort).toMatchObject({ status: 'OAUTH_ERROR', error: 'invalid_client_metadata' });
  });

  it.each([
    [
      { allowedCorsOrigins: ['localhost:3000'] },
      'Origin URL localhost:3000 must use https:// or http:// as HTTP scheme.',
    ],
    [
      { allowedCorsOrigins: ['app.example.com'] },
      'Origin URL app.example.com must use https:// or http:// as HTTP scheme.',
    ],
    [
      { allowedCorsOrigins: ['https://app.example.com?x'] },
      'Origin URL https://app.example.com?x must have an empty path, query, and fragment but one of the parts is not empty.',
    ],
    [
      { allowedCorsOrigins: ['http://[::1'] },
      "Origin URL http://[::1 from allowed_cors_origins could not be parsed: parse 'http://[::1': invalid URL",
    ],
    [{ clientUri: '/relative' }, '/relative must use https:// or http:// as HTTP scheme for field client_uri.'],
    [{ policyUri: 'relative' }, 'Field policy_uri must be a valid URI.'],
    [{ postLogoutRedirectUris: ['nope'] }, 'Unable to parse post_logout_redirect_uri: nope'],
  ])('refuses %j: %s', (fields, hint) => {
    const refused = checkClient(newSettings(fields, false), undefined);
    expect(isOAuthError(refused) && refused.errorDescription.endsWith(hint)).toBe(true);
  });
});

describe('the list query', () => {
  it.each([
    [{}, { pageSize: 250, after: undefined, clientName: undefined }],
    [
      { pageSize: '3', clientName: 'x' },
      { pageSize: 3, after: undefined, clientName: 'x' },
    ],
    [{ pageSize: '5000' }, { pageSize: 1000, after: undefined, clientName: undefined }],
    [{ pageSize: '-4' }, { pageSize: 1, after: undefined, clientName: undefined }],
    [{ pageSize: '2.5' }, { pageSize: 250, after: undefined, clientName: undefined }],
    [
      { pageSize: '+7', clientName: '' },
      { pageSize: 7, after: undefined, clientName: undefined },
    ],
    [
      { pageToken: Buffer.from('stcl_abc').toString('base64url') },
      { pageSize: 250, after: 'stcl_abc', clientName: undefined },
    ],
    [{ pageToken: 'c3RjbF9hYmM=' }, { pageSize: 250, after: undefined, clientName: undefined }],
    [{ pageToken: '' }, { pageSize: 250, after: undefined, clientName: undefined }],
  ])('%j → %j', (query, expected) => {
    expect(parseListClients(query)).toEqual(expected);
  });
});

function depsWith(store: OAuthClientStore, overrides: Partial<OAuthClientDeps> = {}): OAuthClientDeps {
  let n = 0;
  return {
    store,
    enabled: true,
    now: () => 1_700_000_000_400,
    uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    randomInt: (max) => n++ % max,
    ...overrides,
  };
}

describe('the use cases', () => {
  it('answer 402 with the reference’s message when the app has the switch off, touching nothing', async () => {
    const store = memoryOAuthClientStores();
    const deps = depsWith(store.forApp('a'), { enabled: false });
    const calls = [
      () => createClient(deps, parseCreateClient({})),
      () => getClient(deps, 'x'),
      () => updateClient(deps, parseUpdateClient({ clientId: 'x' })),
      () => removeClient(deps, 'x'),
      () => listClients(deps, parseListClients({})),
    ];
    for (const run of calls) {
      const refused = await run().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(CoreHttpError);
      expect(refused).toMatchObject({ statusCode: 402, message: OAUTH_DISABLED_MESSAGE });
    }
    expect(store.clients.size).toBe(0);
  });

  it('create: stcl_ ids, 26-character secrets, times rounded to the second', async () => {
    const store = memoryOAuthClientStores();
    const client = (await createClient(depsWith(store.forApp('a')), parseCreateClient({}))) as Record<string, unknown>;
    expect(client.clientId).toBe('stcl_00000000-0000-4000-8000-000000000001');
    expect(client.clientSecret).toMatch(/^[A-Za-z0-9_.~-]{26}$/);
    expect(client.createdAt).toBe('2023-11-14T22:13:20Z');
  });

  it('update: reads again when a concurrent change came first, and keeps that change', async () => {
    const store = memoryOAuthClientStores();
    const deps = depsWith(store.forApp('a'));
    const made = (await createClient(deps, parseCreateClient({ clientId: 'c', clientName: 'x' }))) as {
      clientId: string;
    };
    let interfered = false;
    store.interfere = () => {
      if (interfered) return;
      interfered = true;
      const found = store.clients.get('a\u0000c')!;
      store.clients.set('a\u0000c', {
        client: { ...found.client, scope: 'changed meanwhile' },
        version: found.version + 1,
      });
    };
    const updated = await updateClient(deps, parseUpdateClient({ clientId: made.clientId, clientName: 'y' }));
    expect(updated).toMatchObject({ status: 'OK', clientName: 'y', scope: 'changed meanwhile' });
    expect(store.clients.get('a\u0000c')!.version).toBe(3);
  });

  it('update: a client that changes under every attempt is backpressure (503), not a 500, and keeps the others’ changes', async () => {
    const store = memoryOAuthClientStores();
    const deps = depsWith(store.forApp('a'));
    await createClient(deps, parseCreateClient({ clientId: 'busy' }));
    store.interfere = () => {
      const found = store.clients.get('a\u0000busy')!;
      store.clients.set('a\u0000busy', {
        client: { ...found.client, clientName: 'theirs' },
        version: found.version + 1,
      });
    };
    const refused = await updateClient(deps, parseUpdateClient({ clientId: 'busy', clientName: 'mine' })).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(BackpressureError);
    expect(store.clients.get('a\u0000busy')!.client.clientName).toBe('theirs');
  });

  it('list: a token only while more clients follow', async () => {
    const store = memoryOAuthClientStores();
    const deps = depsWith(store.forApp('app'));
    for (const id of ['a', 'b', 'c']) await createClient(deps, parseCreateClient({ clientId: id }));
    const first = await listClients(deps, parseListClients({ pageSize: '2' }));
    expect(first.clients.map((c) => c.clientId)).toEqual(['a', 'b']);
    const second = await listClients(deps, parseListClients({ pageSize: '2', pageToken: first.nextPaginationToken }));
    expect(second).toMatchObject({ clients: [{ clientId: 'c' }] });
    expect(second).not.toHaveProperty('nextPaginationToken');
    expect((await listClients(depsWith(store.forApp('other')), parseListClients({}))).clients).toEqual([]);
  });

  it('no body makes create or update fail other than with the core’s 400: they answer OK or OAUTH_ERROR', async () => {
    const fieldNames = fc.constantFrom(
      'clientId',
      'clientSecret',
      'clientName',
      'scope',
      'redirectUris',
      'postLogoutRedirectUris',
      'grantTypes',
      'responseTypes',
      'audience',
      'allowedCorsOrigins',
      'tokenEndpointAuthMethod',
      'clientUri',
      'logoUri',
      'policyUri',
      'tosUri',
      'metadata',
      'enableRefreshTokenRotation',
      'refreshTokenGrantRefreshTokenLifespan',
      '__proto__',
      'constructor',
    );
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom('http://localhost:3000', 'https://a.example.com/cb#x', '/cb', '1h', 'none', 'private_key_jwt'),
      fc.array(fc.constantFrom('http://localhost:3000', 'https://x.example.com/y', 'bad uri', '', null)),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fieldNames, value, { maxKeys: 6 }), fc.boolean(), async (body, asUpdate) => {
        const store = memoryOAuthClientStores();
        const deps = depsWith(store.forApp('a'));
        await createClient(deps, parseCreateClient({ clientId: 'target' }));
        try {
          const answer = asUpdate
            ? await updateClient(deps, parseUpdateClient({ ...body, clientId: 'target' }))
            : await createClient(deps, parseCreateClient(body));
          expect(['OK', 'OAUTH_ERROR']).toContain((answer as { status: string }).status);
          if ((answer as { status: string }).status === 'OK') {
            const stored = store.clients.get(`a\u0000${(answer as { clientId: string }).clientId}`)!.client;
            expect(JSON.parse(JSON.stringify(stored))).toMatchObject({
              clientId: expect.any(String),
            } satisfies Partial<OAuthClient>);
          }
        } catch (error) {
          expect(error).toBeInstanceOf(BadRequestError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
