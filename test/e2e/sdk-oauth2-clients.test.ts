/**
 * OAuth2 client management through the unmodified supertokens-node (`OAuth2Provider` recipe:
 * `createOAuth2Client`, `getOAuth2Client`, `getOAuth2Clients`, `updateOAuth2Client`,
 * `deleteOAuth2Client`) against `npm start` over HTTP (docs/oauth2-clients.md): what the SDK's own
 * oauth2client tests check, plus what it shows for refusals, the answer of an app with the switch
 * off, and that no secret reaches the runtime's output.
 */
import { randomBytes } from 'node:crypto';
import supertokens from 'supertokens-node';
import OAuth2Provider from 'supertokens-node/recipe/oauth2provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, createApp, startRuntime, stopRuntime } from './migrate-helpers.js';

const API_KEY = `oauth-e2e-${randomBytes(12).toString('hex')}`;
const APP_ID = `oauth-${randomBytes(4).toString('hex')}`;
const OFF_APP_ID = `oauth-off-${randomBytes(4).toString('hex')}`;

let runtime: LocalProcess | undefined;
let dir: string | undefined;
const core = coreCaller(() => runtime!, API_KEY);
const secretsSeen: string[] = [];

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'oauth-e2e-'));
  await createApp(core, APP_ID, { oauth_provider_enabled: true });
  // The in-memory runtime turns the switch on for every app unless its coreConfig says otherwise.
  await createApp(core, OFF_APP_ID, { oauth_provider_enabled: false });
  supertokens.init({
    appInfo: { appName: 'oauth-e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: `${runtime.url}/appid-${APP_ID}`, apiKey: API_KEY },
    telemetry: false,
    recipeList: [OAuth2Provider.init()],
  });
});

afterAll(() => stopRuntime(runtime, dir));

describe('OAuth2 clients through supertokens-node', () => {
  it('creates a client from nothing: an id, a secret and the default scope', async () => {
    const created = await OAuth2Provider.createOAuth2Client({});
    expect(created.status).toBe('OK');
    if (created.status !== 'OK') return;
    const { client } = created;
    secretsSeen.push(client.clientSecret!);
    expect(client.clientId).toMatch(/^stcl_/);
    expect(client.clientSecret).toMatch(/^[A-Za-z0-9_.~-]{26}$/);
    expect(client.scope).toBe('offline_access offline openid');
    expect(client.tokenEndpointAuthMethod).toBe('client_secret_basic');
    expect(client.metadata).toEqual({});
    expect(client.enableRefreshTokenRotation).toBe(false);

    const read = await OAuth2Provider.getOAuth2Client(client.clientId);
    expect(read).toMatchObject({
      status: 'OK',
      client: { clientId: client.clientId, clientSecret: client.clientSecret, createdAt: client.createdAt },
    });
  });

  it('creates with its own fields and updates them: a new secret, a cleared list, metadata', async () => {
    const created = await OAuth2Provider.createOAuth2Client({
      clientName: 'client_name',
      scope: 'offline_access offline',
      redirectUris: ['http://localhost:3000'],
      authorizationCodeGrantAccessTokenLifespan: '1h',
    });
    expect(created.status).toBe('OK');
    if (created.status !== 'OK') return;
    expect(created.client).toMatchObject({
      clientName: 'client_name',
      scope: 'offline_access offline',
      redirectUris: ['http://localhost:3000'],
      authorizationCodeGrantAccessTokenLifespan: '1h0m0s',
      metadata: {},
    });
    secretsSeen.push(created.client.clientSecret!);

    const updated = await OAuth2Provider.updateOAuth2Client({
      clientId: created.client.clientId,
      clientSecret: 'new_client_secret',
      scope: 'offline_access',
      redirectUris: null,
      metadata: { a: 1, b: 2 },
    });
    expect(updated.status).toBe('OK');
    if (updated.status !== 'OK') return;
    expect(updated.client).toMatchObject({
      clientName: 'client_name',
      clientSecret: 'new_client_secret',
      scope: 'offline_access',
      redirectUris: null,
      metadata: { a: 1, b: 2 },
    });
    const read = await OAuth2Provider.getOAuth2Client(created.client.clientId);
    expect(read).toMatchObject({ status: 'OK', client: { clientSecret: 'new_client_secret', redirectUris: [] } });
  });

  it('lists every client, three at a time, and filters by name', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 7; i++) {
      const created = await OAuth2Provider.createOAuth2Client({ clientName: i < 5 ? 'customClientName' : 'other' });
      if (created.status === 'OK') ids.add(created.client.clientId);
    }
    const listed: string[] = [];
    let paginationToken: string | undefined;
    let pages = 0;
    do {
      const page = await OAuth2Provider.getOAuth2Clients({
        pageSize: 3,
        ...(paginationToken ? { paginationToken } : {}),
      });
      expect(page.status).toBe('OK');
      if (page.status !== 'OK') return;
      listed.push(...page.clients.map((c) => c.clientId));
      paginationToken = page.nextPaginationToken;
      pages++;
    } while (paginationToken);
    // The two clients of the tests above, and these seven.
    expect(listed).toHaveLength(9);
    expect(pages).toBe(3);
    expect(listed).toEqual([...listed].sort());
    for (const id of ids) expect(listed).toContain(id);

    const named = await OAuth2Provider.getOAuth2Clients({ clientName: 'customClientName' });
    expect(named.status === 'OK' && named.clients.map((c) => c.clientName)).toEqual(Array(5).fill('customClientName'));
  });

  it('deletes a client; it is then unknown', async () => {
    const created = await OAuth2Provider.createOAuth2Client({});
    if (created.status !== 'OK') throw new Error(created.status);
    expect(await OAuth2Provider.deleteOAuth2Client({ clientId: created.client.clientId })).toEqual({ status: 'OK' });
    expect(await OAuth2Provider.getOAuth2Client(created.client.clientId)).toEqual({
      status: 'ERROR',
      error: 'Unable to locate the resource',
      errorDescription: '',
    });
  });

  it('shows the provider’s refusals as the SDK’s ERROR, and an unknown client on update', async () => {
    expect(await OAuth2Provider.createOAuth2Client({ clientSecret: 'short' })).toEqual({
      status: 'ERROR',
      error: 'invalid_client_metadata',
      errorDescription:
        "The value of one of the Client Metadata fields is invalid and the server has rejected this request. Note that an Authorization Server MAY choose to substitute a valid value for any requested parameter of a Client's Metadata. Field client_secret must contain a secret that is at least 6 characters long.",
    });
    const unknown = OAuth2Provider.updateOAuth2Client({ clientId: 'no-such-client', clientName: 'x' });
    // The SDK reads no error out of CLIENT_NOT_FOUND_ERROR on update: both fields undefined.
    expect(await unknown).toEqual({ status: 'ERROR', error: undefined, errorDescription: undefined });
  });

  it('an app without oauth_provider_enabled answers 402 (the reference without the licence)', async () => {
    const refused = await core('POST', `/appid-${OFF_APP_ID}/recipe/oauth/clients`, {});
    expect([refused.status, refused.text]).toEqual([
      402,
      'OAuth feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.\n',
    ]);
  });

  it('no client secret reached the runtime’s output', () => {
    expect(secretsSeen.length).toBeGreaterThan(0);
    const output = `${runtime!.stdout}\n${runtime!.stderr}`;
    for (const secret of [...secretsSeen, 'new_client_secret']) expect(output).not.toContain(secret);
  });
});
