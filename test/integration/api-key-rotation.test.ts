/**
 * Base API keys rotate within a bound (docs/security.md "API key rotation"): the base config, and with it
 * the keys, is read again once it is 5 minutes old, so a key rotated out of the environment or the
 * secret stops working then; and no app or tenant may keep a base key as its own, where a rotation
 * would not reach it. The clock the base config ages by is the test's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_CONFIG_MAX_AGE_MS, resetBaseConfigForTests } from '#functions/config/base.js';
import { call, uniqueAppId } from '../helpers/core-client.js';

const OLD_KEY = 'rotation-old-key-0123456789';
const NEW_KEY = 'rotation-new-key-0123456789';
const OWN_KEY = 'rotation-app-own-key-012345';
const PINNED =
  'Invalid core config: api_keys contains a key of the base configuration (API_KEYS, or the API-keys secret on AWS): an app or tenant needs keys of its own, so that rotating the base keys revokes the old ones everywhere';

let now = 1_000_000_000;
let baseKeys = OLD_KEY;
/** The base config as the environment (or, on AWS, the secret) holds it at the time of a load. */
const useBase = () =>
  resetBaseConfigForTests({
    env: new Proxy(process.env, { get: (env, name) => (name === 'API_KEYS' ? baseKeys : env[name as string]) }),
    now: () => now,
  });

beforeAll(useBase);
afterAll(() => resetBaseConfigForTests());

const withKey = (key: string) => ({ headers: { 'api-key': key } });
const hello = (appId: string, key: string) => call('GET', `/appid-${appId}/users/count`, withKey(key));

describe('base API key rotation', () => {
  it('a rotated-out key keeps working for at most 5 minutes, the new one from the next read on', async () => {
    const appId = uniqueAppId('rotation');
    const created = await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId }, ...withKey(OLD_KEY) });
    expect(created.status, created.text).toBe(200);
    expect((await hello(appId, OLD_KEY)).status).toBe(200);

    baseKeys = NEW_KEY;
    now += BASE_CONFIG_MAX_AGE_MS - 1_000;
    // Not yet read again: the old key still works, the new one not yet.
    expect((await hello(appId, OLD_KEY)).status).toBe(200);
    expect((await hello(appId, NEW_KEY)).status).toBe(401);
    now += 1_000;
    expect([(await hello(appId, OLD_KEY)).status, (await hello(appId, OLD_KEY)).text]).toEqual([
      401,
      'Invalid API key',
    ]);
    expect((await hello(appId, NEW_KEY)).status).toBe(200);
  });
});

describe('a base key as an app or tenant key', () => {
  it('is refused with a 400; keys of their own are stored and replace the base keys for that app', async () => {
    baseKeys = `${NEW_KEY},${OLD_KEY}`;
    now += BASE_CONFIG_MAX_AGE_MS;
    const appId = uniqueAppId('pinned');
    const put = (coreConfig: Record<string, unknown>) =>
      call('PUT', '/recipe/multitenancy/app/v2', { body: { appId, coreConfig }, ...withKey(NEW_KEY) });
    for (const apiKeys of [OLD_KEY, `${OWN_KEY},${NEW_KEY}`]) {
      const refused = await put({ api_keys: apiKeys });
      expect([refused.status, refused.text]).toEqual([400, PINNED]);
    }
    // Nothing was stored: the app does not exist.
    expect((await hello(appId, NEW_KEY)).text).toMatch(/^AppId or tenantId not found/);

    expect((await put({ api_keys: OWN_KEY })).status).toBe(200);
    expect((await hello(appId, OWN_KEY)).status).toBe(200);
    expect((await hello(appId, NEW_KEY)).status).toBe(401);
    // A tenant: its own keys must be the app's (an app-wide key), never a base key.
    const tenantPut = (apiKeys: string) =>
      call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
        body: { tenantId: 't1', coreConfig: { api_keys: apiKeys } },
        ...withKey(OWN_KEY),
      });
    const refused = await tenantPut(OLD_KEY);
    expect([refused.status, refused.text]).toEqual([400, PINNED]);
    expect((await tenantPut(OWN_KEY)).status).toBe(200);
  });
});
