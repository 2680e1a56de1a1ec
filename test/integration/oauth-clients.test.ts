/**
 * OAuth2 client management (`/recipe/oauth/clients…`, docs/oauth2-clients.md) through the real
 * handlers against DynamoDB Local: the reference's answers for create, get, update, list (pages,
 * name filter) and remove, the provider's defaults and refusals, the licence switch, what is
 * stored (the secret only sealed), isolation between apps, app removal, concurrent updates, and
 * malformed bodies (never a 500).
 */
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OAUTH_DISABLED_MESSAGE } from '#functions/domain/oauth-clients/service.js';
import { tableName } from '#functions/shared/clients.js';
import { ENV } from '#functions/shared/env.js';
import { setLogSink } from '#functions/shared/logger.js';
import { call, createAppWith, uniqueAppId } from '../helpers/core-client.js';
import { appItems, itemText } from './users-support.js';

const appId = uniqueAppId('oauth');
const otherApp = uniqueAppId('oauth-b');
const offApp = uniqueAppId('oauth-off');
const base = `/appid-${appId}`;
const CLIENTS = '/recipe/oauth/clients';

const create = (body: unknown, app = base) => call('POST', `${app}${CLIENTS}`, { body });
const get = (clientId: string, app = base) => call('GET', `${app}${CLIENTS}?clientId=${encodeURIComponent(clientId)}`);
const update = (body: Record<string, unknown>, app = base) =>
  call('PUT', `${app}${CLIENTS}?clientId=${encodeURIComponent(String(body.clientId))}`, { body });
const remove = (clientId: unknown, app = base) => call('POST', `${app}${CLIENTS}/remove`, { body: { clientId } });
const list = (query: Record<string, string> = {}, app = base) =>
  call('GET', `${app}${CLIENTS}/list?${new URLSearchParams(query)}`);

async function created(body: unknown = {}, app = base) {
  const reply = await create(body, app);
  expect(reply.status, reply.text).toBe(200);
  expect(reply.json.status, reply.text).toBe('OK');
  return reply.json;
}

const METADATA_DESCRIPTION =
  "The value of one of the Client Metadata fields is invalid and the server has rejected this request. Note that an Authorization Server MAY choose to substitute a valid value for any requested parameter of a Client's Metadata.";
const invalidMetadata = (hint: string) => ({
  status: 'OAUTH_ERROR',
  error: 'invalid_client_metadata',
  errorDescription: `${METADATA_DESCRIPTION} ${hint}`,
  statusCode: 400,
});
const malformed = (reason: string) => ({
  status: 'OAUTH_ERROR',
  error: 'The request was malformed or contained invalid parameters',
  errorDescription: `Unable to decode the request body: ${reason}`,
  statusCode: 400,
});
const ISO_SECOND = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

beforeAll(async () => {
  await createAppWith(appId, { oauth_provider_enabled: true }, ['t1']);
  await createAppWith(otherApp, { oauth_provider_enabled: true });
  await createAppWith(offApp);
});

describe('creating a client', () => {
  it('with an empty body: an stcl_ id, a generated secret and the provider’s defaults, shown again by get', async () => {
    const before = Date.now();
    const client = await created({});
    expect(client).toEqual({
      status: 'OK',
      clientId: expect.stringMatching(/^stcl_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      clientName: '',
      clientSecret: expect.stringMatching(/^[A-Za-z0-9_.~-]{26}$/),
      redirectUris: null,
      grantTypes: null,
      responseTypes: null,
      scope: 'offline_access offline openid',
      audience: [],
      policyUri: '',
      allowedCorsOrigins: [],
      tosUri: '',
      clientUri: '',
      logoUri: '',
      tokenEndpointAuthMethod: 'client_secret_basic',
      createdAt: expect.stringMatching(ISO_SECOND),
      updatedAt: client.createdAt,
      metadata: {},
      authorizationCodeGrantAccessTokenLifespan: null,
      authorizationCodeGrantIdTokenLifespan: null,
      authorizationCodeGrantRefreshTokenLifespan: null,
      clientCredentialsGrantAccessTokenLifespan: null,
      implicitGrantAccessTokenLifespan: null,
      implicitGrantIdTokenLifespan: null,
      refreshTokenGrantAccessTokenLifespan: null,
      refreshTokenGrantIdTokenLifespan: null,
      refreshTokenGrantRefreshTokenLifespan: null,
      enableRefreshTokenRotation: false,
    });
    expect(Math.abs(Date.parse(client.createdAt) - before)).toBeLessThan(5000);

    const read = await get(client.clientId);
    expect(read.status).toBe(200);
    // Read back, the lists never set are empty lists (as the provider reads them back).
    expect(read.json).toEqual({ ...client, redirectUris: [], grantTypes: [], responseTypes: [] });
  });

  it('keeps every field it is given, lifespans in Go’s canonical form', async () => {
    const body = {
      clientId: `given-${appId}`,
      clientSecret: 'kEdQVPNLsl_FHOFBO_nWnj7P3.',
      clientName: 'Test Client',
      scope: 'openid email',
      redirectUris: ['http://localhost:3000/auth', 'com.example.app:/callback'],
      postLogoutRedirectUris: ['http://localhost:3000/logout'],
      enableRefreshTokenRotation: true,
      authorizationCodeGrantAccessTokenLifespan: '1h',
      authorizationCodeGrantIdTokenLifespan: '90m',
      authorizationCodeGrantRefreshTokenLifespan: '1.5h',
      clientCredentialsGrantAccessTokenLifespan: '4h0m0s',
      implicitGrantAccessTokenLifespan: '300ms',
      implicitGrantIdTokenLifespan: '6h',
      refreshTokenGrantAccessTokenLifespan: '7h',
      refreshTokenGrantIdTokenLifespan: '8h',
      refreshTokenGrantRefreshTokenLifespan: '720h',
      tokenEndpointAuthMethod: 'client_secret_post',
      clientUri: 'http://localhost:3000',
      allowedCorsOrigins: ['http://localhost:3000/', 'https://app.example.com'],
      audience: ['https://api.example.com'],
      grantTypes: ['authorization_code', 'implicit', 'refresh_token', 'client_credentials'],
      responseTypes: ['code', 'token', 'code id_token'],
      logoUri: 'http://localhost:3000/logo.png',
      policyUri: 'http://localhost:3000/policy.html',
      tosUri: 'http://localhost:3000/tos.html',
      metadata: { sub: 'test-client-id', exp: 1714857600, nested: { '': [1, null, { deep: true }] } },
    };
    const client = await created(body);
    expect(client).toMatchObject({
      ...body,
      authorizationCodeGrantAccessTokenLifespan: '1h0m0s',
      authorizationCodeGrantIdTokenLifespan: '1h30m0s',
      authorizationCodeGrantRefreshTokenLifespan: '1h30m0s',
      clientCredentialsGrantAccessTokenLifespan: '4h0m0s',
      implicitGrantAccessTokenLifespan: '300ms',
      implicitGrantIdTokenLifespan: '6h0m0s',
      refreshTokenGrantAccessTokenLifespan: '7h0m0s',
      refreshTokenGrantIdTokenLifespan: '8h0m0s',
      refreshTokenGrantRefreshTokenLifespan: '720h0m0s',
      allowedCorsOrigins: ['http://localhost:3000', 'https://app.example.com'],
    });
    expect((await get(body.clientId)).json).toEqual(client);
  });

  it('stores the secret sealed, never in clear', async () => {
    const client = await created({ clientSecret: 'a-secret-nobody-reads-in-clear' });
    const items = (await appItems(appId)).filter((item) => item.clientId === client.clientId);
    expect(items).toHaveLength(1);
    expect(items[0]!.secretSealed).toBeInstanceOf(Uint8Array);
    expect(itemText(items[0]!)).not.toContain('a-secret-nobody-reads-in-clear');
    expect((await get(client.clientId)).json.clientSecret).toBe('a-secret-nobody-reads-in-clear');
  });

  it('a public client (tokenEndpointAuthMethod none) has no secret to show', async () => {
    const client = await created({ tokenEndpointAuthMethod: 'none', clientSecret: 'ignored-secret' });
    expect(client).not.toHaveProperty('clientSecret');
    expect((await get(client.clientId)).json).not.toHaveProperty('clientSecret');
    const item = (await appItems(appId)).find((i) => i.clientId === client.clientId)!;
    expect(item).not.toHaveProperty('secretSealed');
  });

  it('an empty client id is a bare UUID; an id the app has is the provider’s conflict', async () => {
    expect((await created({ clientId: '' })).clientId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
    const clientId = `taken-${appId}`;
    await created({ clientId, clientName: 'first' });
    const again = await create({ clientId, clientName: 'second' });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({
      status: 'OAUTH_ERROR',
      error: 'Unable to insert or update resource because a resource with that value exists already',
      errorDescription: '',
      statusCode: 409,
    });
    expect((await get(clientId)).json.clientName).toBe('first');
  });

  it.each([
    [
      { clientSecret: 'short' },
      invalidMetadata('Field client_secret must contain a secret that is at least 6 characters long.'),
    ],
    [{ logoUri: 'not a uri' }, invalidMetadata('Field logo_uri must be a valid URI.')],
    [
      { tosUri: 'ftp://files.example.com/tos' },
      invalidMetadata('ftp://files.example.com/tos must use https:// or http:// as HTTP scheme for field tos_uri.'),
    ],
    [
      { allowedCorsOrigins: ['https://app.example.com/path'] },
      invalidMetadata(
        'Origin URL https://app.example.com/path must have an empty path, query, and fragment but one of the parts is not empty.',
      ),
    ],
    [
      { allowedCorsOrigins: ['https://user:pw@app.example.com'] },
      invalidMetadata(
        'Origin URL https://user:pw@app.example.com has HTTP user and/or password set which is not allowed.',
      ),
    ],
    [
      { redirectUris: ['relative/path'] },
      {
        status: 'OAUTH_ERROR',
        error: 'invalid_redirect_uri',
        errorDescription:
          'The value of one or more redirect_uris is invalid. Unable to parse redirect URL: relative/path',
        statusCode: 400,
      },
    ],
    [
      { redirectUris: ['https://app.example.com/cb#frag'] },
      {
        status: 'OAUTH_ERROR',
        error: 'invalid_redirect_uri',
        errorDescription:
          'The value of one or more redirect_uris is invalid. Redirect URIs must not contain fragments (#).',
        statusCode: 400,
      },
    ],
    [
      { redirectUris: ['https://app.example.com/cb'], postLogoutRedirectUris: ['https://other.example.com/bye'] },
      invalidMetadata(
        "post_logout_redirect_uri 'https://other.example.com/bye' must match the domain, port, scheme of at least one of the registered redirect URIs but did not'",
      ),
    ],
    [
      { tokenEndpointAuthMethod: 'private_key_jwt' },
      invalidMetadata("When token_endpoint_auth_method is 'private_key_jwt', either jwks or jwks_uri must be set."),
    ],
    [
      { clientName: 42 },
      malformed('json: cannot unmarshal number into Go struct field Client.client_name of type string'),
    ],
    [
      { redirectUris: 'https://app.example.com/cb' },
      malformed(
        'json: cannot unmarshal string into Go struct field Client.redirect_uris of type sqlxx.StringSliceJSONFormat',
      ),
    ],
    [{ implicitGrantAccessTokenLifespan: '1d' }, malformed("time: unknown unit 'd' in duration '1d'")],
    [{ implicitGrantAccessTokenLifespan: '10' }, malformed("time: missing unit in duration '10'")],
  ])('refuses %j as the provider does (200 OAUTH_ERROR), storing nothing', async (body, expected) => {
    const before = (await appItems(appId)).length;
    const reply = await create({ clientName: 'refused', ...body });
    expect([reply.status, reply.json]).toEqual([200, expected]);
    expect((await appItems(appId)).length).toBe(before);
  });

  it('refuses a non-boolean enableRefreshTokenRotation and an over-long id with the core’s 400', async () => {
    const rotation = await create({ enableRefreshTokenRotation: 'yes' });
    expect([rotation.status, rotation.text]).toEqual([
      400,
      "Field name 'enableRefreshTokenRotation' is invalid in JSON input",
    ]);
    const long = await create({ clientId: 'x'.repeat(256) });
    expect([long.status, long.text]).toEqual([400, "Field name 'clientId' is too long. Max length is 255."]);
    const notJson = await call('POST', `${base}${CLIENTS}`, { rawBody: '[1]' });
    expect([notJson.status, notJson.text]).toEqual([400, 'Invalid Json Input']);
  });
});

describe('getting, updating and removing a client', () => {
  it('get: the provider’s 404 for an unknown id, the core’s 400 without one', async () => {
    expect((await get('no-such-client')).json).toEqual({
      status: 'OAUTH_ERROR',
      error: 'Unable to locate the resource',
      errorDescription: '',
      statusCode: 404,
    });
    const missing = await call('GET', `${base}${CLIENTS}`);
    expect([missing.status, missing.text]).toEqual([400, "Field name 'clientId' is missing in GET request"]);
  });

  it('update: changes what the body sets (null clears), keeps the rest, the creation time and, unless sent, the secret', async () => {
    const client = await created({
      clientName: 'before',
      scope: 'offline_access offline',
      redirectUris: ['http://localhost:3000'],
      audience: ['https://api.example.com'],
    });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const changed = await update({
      clientId: client.clientId,
      clientSecret: 'new_client_secret',
      scope: 'offline_access',
      redirectUris: null,
      metadata: { a: 1, b: 2 },
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toEqual({
      ...client,
      clientSecret: 'new_client_secret',
      scope: 'offline_access',
      redirectUris: null,
      metadata: { a: 1, b: 2 },
      updatedAt: expect.stringMatching(ISO_SECOND),
    });
    expect(Date.parse(changed.json.updatedAt)).toBeGreaterThan(Date.parse(client.createdAt));
    expect((await get(client.clientId)).json).toEqual({
      ...changed.json,
      redirectUris: [],
      grantTypes: [],
      responseTypes: [],
    });

    // Without a secret the stored one stays and is shown; a null scope is the default again.
    const renamed = await update({
      clientId: client.clientId,
      clientName: 'after',
      scope: null,
      enableRefreshTokenRotation: true,
    });
    expect(renamed.json).toMatchObject({
      clientName: 'after',
      clientSecret: 'new_client_secret',
      scope: 'offline_access offline openid',
      enableRefreshTokenRotation: true,
      audience: ['https://api.example.com'],
      metadata: { a: 1, b: 2 },
    });
  });

  it('update: checks the whole client again, and refuses what the provider refuses without changing it', async () => {
    const client = await created({ redirectUris: ['https://app.example.com/cb'] });
    const accepted = await update({
      clientId: client.clientId,
      postLogoutRedirectUris: ['https://app.example.com/bye'],
    });
    expect(accepted.json.postLogoutRedirectUris).toEqual(['https://app.example.com/bye']);
    const refused = await update({ clientId: client.clientId, redirectUris: ['https://elsewhere.example.com/cb'] });
    expect(refused.json).toEqual(
      invalidMetadata(
        "post_logout_redirect_uri 'https://app.example.com/bye' must match the domain, port, scheme of at least one of the registered redirect URIs but did not'",
      ),
    );
    const short = await update({ clientId: client.clientId, clientSecret: 'abc' });
    expect(short.json.error).toBe('invalid_client_metadata');
    expect((await get(client.clientId)).json).toEqual({ ...accepted.json, grantTypes: [], responseTypes: [] });
  });

  it('update: CLIENT_NOT_FOUND_ERROR for an unknown id, the core’s 400 for a missing id or secret of the wrong type', async () => {
    expect((await update({ clientId: 'no-such-client', clientName: 'x' })).json).toEqual({
      status: 'CLIENT_NOT_FOUND_ERROR',
    });
    const noId = await call('PUT', `${base}${CLIENTS}`, { body: { clientName: 'x' } });
    expect([noId.status, noId.text]).toEqual([400, "Field name 'clientId' is invalid in JSON input"]);
    const client = await created();
    const nullSecret = await update({ clientId: client.clientId, clientSecret: null });
    expect([nullSecret.status, nullSecret.text]).toEqual([400, "Field name 'clientSecret' is invalid in JSON input"]);
  });

  it('concurrent updates each land on the latest version: none is lost', async () => {
    const client = await created({ metadata: {} });
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) => update({ clientId: client.clientId, clientName: `name-${i}` })),
    );
    expect(replies.map((r) => [r.status, r.json.status])).toEqual(Array(6).fill([200, 'OK']));
    const final = (await get(client.clientId)).json.clientName;
    expect(replies.map((r) => r.json.clientName)).toContain(final);
  });

  it('remove: didExist true once, then false; the client is gone from get and list', async () => {
    const client = await created({ clientName: 'doomed' });
    expect((await remove(client.clientId)).json).toEqual({ status: 'OK', didExist: true });
    expect((await remove(client.clientId)).json).toEqual({ status: 'OK', didExist: false });
    expect((await get(client.clientId)).json.status).toBe('OAUTH_ERROR');
    expect((await list({ clientName: 'doomed' })).json.clients).toEqual([]);
    const noId = await call('POST', `${base}${CLIENTS}/remove`, { body: {} });
    expect([noId.status, noId.text]).toEqual([400, "Field name 'clientId' is invalid in JSON input"]);
  });
});

describe('listing clients', () => {
  const pageApp = uniqueAppId('oauth-pages');
  const pageBase = `/appid-${pageApp}`;
  const ids: string[] = [];

  beforeAll(async () => {
    await createAppWith(pageApp, { oauth_provider_enabled: true });
    for (let i = 0; i < 10; i++)
      ids.push((await created({ clientName: i % 2 === 0 ? 'even' : 'odd' }, pageBase)).clientId);
    ids.sort();
  });

  async function allPages(query: Record<string, string>) {
    const pages: string[][] = [];
    let token: string | undefined;
    do {
      const reply = await list({ ...query, ...(token ? { pageToken: token } : {}) }, pageBase);
      expect(reply.status, reply.text).toBe(200);
      pages.push(reply.json.clients.map((c: { clientId: string }) => c.clientId));
      token = reply.json.nextPaginationToken;
    } while (token);
    return pages;
  }

  it('pages through every client by id, with a token only while more follow', async () => {
    const pages = await allPages({ pageSize: '3' });
    expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 1]);
    expect(pages.flat()).toEqual(ids);
    expect((await allPages({ pageSize: '5' })).map((p) => p.length)).toEqual([5, 5]);
  });

  it('shows each client as get does, secret included', async () => {
    const reply = await list({ pageSize: '1' }, pageBase);
    expect(reply.json.clients).toEqual([(({ status: _, ...client }) => client)((await get(ids[0]!, pageBase)).json)]);
  });

  it('filters by exact client name, across pages', async () => {
    const pages = await allPages({ clientName: 'even', pageSize: '2' });
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    const all = (await list({ clientName: 'even' }, pageBase)).json.clients;
    expect(all).toHaveLength(5);
    expect(all.every((c: { clientName: string }) => c.clientName === 'even')).toBe(true);
    expect((await list({ clientName: 'Even' }, pageBase)).json.clients).toEqual([]);
  });

  it('reads the page size and token as leniently as the provider', async () => {
    expect((await list({ pageSize: 'abc' }, pageBase)).json.clients).toHaveLength(10);
    expect((await list({ pageSize: '0' }, pageBase)).json.clients).toHaveLength(1);
    const unknownToken = await list({ pageSize: '4', pageToken: '%%not-a-token' }, pageBase);
    expect(unknownToken.json.clients.map((c: { clientId: string }) => c.clientId)).toEqual(ids.slice(0, 4));
  });

  it('another app sees none of them, and cannot read, change or remove them', async () => {
    expect((await list({}, `/appid-${otherApp}`)).json).toEqual({ status: 'OK', clients: [] });
    expect((await get(ids[0]!, `/appid-${otherApp}`)).json.status).toBe('OAUTH_ERROR');
    expect((await update({ clientId: ids[0]!, clientName: 'hijacked' }, `/appid-${otherApp}`)).json).toEqual({
      status: 'CLIENT_NOT_FOUND_ERROR',
    });
    expect((await remove(ids[0]!, `/appid-${otherApp}`)).json).toEqual({ status: 'OK', didExist: false });
    expect((await get(ids[0]!, pageBase)).json.clientName).not.toBe('hijacked');
  });
});

describe('the app', () => {
  it('without oauth_provider_enabled: 402 with the reference’s message on every route', async () => {
    const off = `/appid-${offApp}`;
    const replies = [
      await create({}, off),
      await get('x', off),
      await update({ clientId: 'x' }, off),
      await remove('x', off),
      await list({}, off),
    ];
    expect(replies.map((r) => [r.status, r.text])).toEqual(Array(5).fill([402, OAUTH_DISABLED_MESSAGE]));
  });

  it('is the scope: a non-public tenant is refused (403), an unknown app is 400', async () => {
    const tenant = await call('POST', `${base}/t1${CLIENTS}`, { body: {}, headers: { 'cdi-version': '5.4' } });
    expect([tenant.status, tenant.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    const unknown = await create({}, '/appid-no-such-app');
    expect(unknown.status).toBe(400);
    expect(unknown.text).toMatch(/^AppId or tenantId not found/);
  });

  it('holding only OAuth2 clients, cannot move to another table (they would stay behind)', async () => {
    const mover = uniqueAppId('oauth-move');
    await createAppWith(mover, { oauth_provider_enabled: true });
    await created({}, `/appid-${mover}`);
    process.env[ENV.createTables] = 'true';
    try {
      const moved = await call('PUT', '/recipe/multitenancy/app/v2', {
        body: { appId: mover, coreConfig: { dynamodb_table_name: `oauth-move-${mover}` } },
      });
      expect([moved.status, moved.text]).toEqual([
        400,
        `Invalid core config: dynamodb_table_name cannot change while the app has OAuth2 clients in table '${tableName()}': an app moves to another table only while it holds no data (remove it first, or create a new app)`,
      ]);
    } finally {
      delete process.env[ENV.createTables];
    }
  });

  it('removing the app removes its clients, and only its', async () => {
    const doomed = uniqueAppId('oauth-gone');
    await createAppWith(doomed, { oauth_provider_enabled: true });
    for (let i = 0; i < 3; i++) await created({ clientSecret: `secret-number-${i}` }, `/appid-${doomed}`);
    const survivor = await created({ clientName: 'survivor' }, `/appid-${otherApp}`);
    expect((await appItems(doomed)).filter((i) => i.entityType === 'OAUTH_CLIENT')).toHaveLength(3);
    const removed = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId: doomed } });
    expect(removed.json).toMatchObject({ status: 'OK', didExist: true });
    expect(await appItems(doomed, { ownPartition: true })).toEqual([]);
    expect((await get(survivor.clientId, `/appid-${otherApp}`)).json.clientName).toBe('survivor');
  });
});

describe('credentials', () => {
  const lines: string[] = [];
  let previous: ((line: string) => void) | undefined;
  const level = process.env.LOG_LEVEL;
  beforeEach(() => {
    lines.length = 0;
    process.env.LOG_LEVEL = 'debug';
    previous = setLogSink((line) => lines.push(line));
  });
  afterEach(() => {
    process.env.LOG_LEVEL = level;
    if (previous) setLogSink(previous);
  });

  it('no secret, given or generated, reaches a log line', async () => {
    const given = 'given-secret-0123456789';
    const client = await created({ clientSecret: given });
    const generated = (await created({})).clientSecret as string;
    await get(client.clientId);
    await update({ clientId: client.clientId, clientSecret: 'rotated-secret-0123456789' });
    await list();
    await create({ clientSecret: 'short' });
    const text = lines.join('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const secret of [given, generated, 'rotated-secret-0123456789']) expect(text).not.toContain(secret);
  });
});

describe('malformed bodies', () => {
  const jsonValue = fc.jsonValue({ maxDepth: 3 });
  const field = fc.constantFrom(
    'clientId',
    'clientSecret',
    'clientName',
    'scope',
    'redirectUris',
    'postLogoutRedirectUris',
    'grantTypes',
    'audience',
    'allowedCorsOrigins',
    'tokenEndpointAuthMethod',
    'logoUri',
    'metadata',
    'enableRefreshTokenRotation',
    'implicitGrantAccessTokenLifespan',
  );
  const body = fc.dictionary(field, jsonValue, { maxKeys: 4 });

  it('never answer a 500: a 400, or 200 with OK or the provider’s refusal', async () => {
    const target = await created({ redirectUris: ['https://app.example.com/cb'] });
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (input, asUpdate) => {
        const reply = asUpdate ? await update({ ...input, clientId: target.clientId }) : await create(input);
        expect(reply.status, reply.text).not.toBeGreaterThanOrEqual(500);
        if (reply.status === 200) expect(['OK', 'OAUTH_ERROR']).toContain(reply.json.status);
        else expect(reply.status).toBe(400);
      }),
      { numRuns: 60 },
    );
  });
});
