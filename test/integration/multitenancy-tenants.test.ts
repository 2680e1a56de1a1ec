import { beforeAll, describe, expect, it } from 'vitest';
import { call, uniqueAppId } from '../helpers/core-client.js';

const CDI = (v: string) => ({ headers: { 'cdi-version': v } });
let appId: string;
const app = (path: string) => `/appid-${appId}${path}`;
const putTenant = (body: unknown, prefix = '') => call('PUT', app(`${prefix}/recipe/multitenancy/tenant/v2`), { body });

beforeAll(async () => {
  appId = uniqueAppId('tenants');
  expect((await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId } })).status).toBe(200);
});

describe('tenants', () => {
  it('creates a v2 tenant with no login methods until configured', async () => {
    expect((await putTenant({ tenantId: 'T1' })).json).toEqual({ status: 'OK', createdNew: true });
    const v2 = await call('GET', app('/t1/recipe/multitenancy/tenant/v2'));
    expect(v2.json).toEqual({
      tenantId: 't1',
      thirdParty: { providers: [] },
      firstFactors: [],
      coreConfig: {},
      status: 'OK',
    });
    for (const cdi of ['3.0', '5.0']) {
      const legacy = await call('GET', app('/t1/recipe/multitenancy/tenant'), CDI(cdi));
      expect([
        legacy.json.emailPassword.enabled,
        legacy.json.thirdParty.enabled,
        legacy.json.passwordless.enabled,
      ]).toEqual([false, false, false]);
    }
    expect((await putTenant({ tenantId: 't1', firstFactors: ['emailpassword'] })).json).toEqual({
      status: 'OK',
      createdNew: false,
    });
  });

  it('creates a legacy tenant with every recipe disabled', async () => {
    const reply = await call('PUT', app('/recipe/multitenancy/tenant'), {
      body: { tenantId: 'legacy1' },
      ...CDI('5.0'),
    });
    expect(reply.json).toEqual({ status: 'OK', createdNew: true });
    const view = await call('GET', app('/legacy1/recipe/multitenancy/tenant'), CDI('5.0'));
    expect(view.json.emailPassword.enabled).toBe(false);
    const enabled = await call('PUT', app('/recipe/multitenancy/tenant'), {
      body: { tenantId: 'legacy1', emailPasswordEnabled: true },
      ...CDI('5.0'),
    });
    expect(enabled.json.createdNew).toBe(false);
    const after = await call('GET', app('/legacy1/recipe/multitenancy/tenant'), CDI('5.0'));
    expect(after.json.emailPassword.enabled).toBe(true);
    expect(after.json.thirdParty.enabled).toBe(false);
  });

  it.each([
    ['recipe', "Cannot use 'recipe' as a tenantId"],
    ['hello', "Cannot use 'hello' as a tenantId"],
    ['abcd+1234', 'tenantId can only contain letters, numbers and hyphens'],
    ['appid-x', "tenantId must not start with 'appid-'"],
    [' ', 'tenantId should not be an empty String'],
  ])('refuses tenantId %j', async (tenantId, message) => {
    const reply = await putTenant({ tenantId });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(message);
  });

  it('allows updating a tenant only from the public or the same tenant', async () => {
    await putTenant({ tenantId: 'perm1' });
    await putTenant({ tenantId: 'perm2' });
    const same = await putTenant({ tenantId: 'perm1', firstFactors: ['thirdparty'] }, '/perm1');
    expect(same.json).toEqual({ status: 'OK', createdNew: false });
    const other = await putTenant({ tenantId: 'perm2' }, '/perm1');
    expect(other.status).toBe(403);
    expect(other.text).toBe('You must use the public or same tenant to add/update a tenant');
  });

  it('answers TENANT_NOT_FOUND_ERROR for an unknown tenant or app', async () => {
    expect((await call('GET', app('/nope/recipe/multitenancy/tenant/v2'))).json).toEqual({
      status: 'TENANT_NOT_FOUND_ERROR',
    });
    expect((await call('GET', '/appid-no-such-app/recipe/multitenancy/tenant/v2')).json).toEqual({
      status: 'TENANT_NOT_FOUND_ERROR',
    });
  });

  it('lists tenants only from the public tenant', async () => {
    await putTenant({ tenantId: 'listed' });
    const list = await call('GET', app('/recipe/multitenancy/tenant/list/v2'));
    expect(list.status).toBe(200);
    const ids = list.json.tenants.map((t: any) => t.tenantId);
    expect(ids).toContain('public');
    expect(ids).toContain('listed');
    const fromTenant = await call('GET', app('/listed/recipe/multitenancy/tenant/list/v2'));
    expect(fromTenant.status).toBe(403);
    expect(fromTenant.text).toBe('Only the public tenantId is allowed to list all tenants associated with this app');
    const legacy = await call('GET', app('/recipe/multitenancy/tenant/list'), CDI('3.0'));
    expect(legacy.json.tenants.find((t: any) => t.tenantId === 'public').emailPassword).toEqual({ enabled: true });
  });

  it('removes tenants with the reference rules', async () => {
    await putTenant({ tenantId: 'gone' });
    const fromTenant = await call('POST', app('/gone/recipe/multitenancy/tenant/remove'), {
      body: { tenantId: 'gone' },
    });
    expect(fromTenant.status).toBe(403);
    expect(fromTenant.text).toBe('Only the public tenantId is allowed to delete a tenant');
    const pub = await call('POST', app('/recipe/multitenancy/tenant/remove'), { body: { tenantId: 'public' } });
    expect(pub.status).toBe(403);
    expect(pub.text).toBe('Cannot delete public tenant, use remove app API instead');
    const missing = await call('POST', app('/recipe/multitenancy/tenant/remove'), { body: {} });
    expect(missing.text).toBe("Field name 'tenantId' is invalid in JSON input");
    const ok = await call('POST', app('/recipe/multitenancy/tenant/remove'), { body: { tenantId: 'GONE' } });
    expect(ok.json).toEqual({ status: 'OK', didExist: true });
    const again = await call('POST', app('/recipe/multitenancy/tenant/remove'), { body: { tenantId: 'gone' } });
    expect(again.json).toEqual({ status: 'OK', didExist: false });
    const after = await call('GET', app('/gone/recipe/multitenancy/tenant/v2'));
    expect(after.json).toEqual({ status: 'TENANT_NOT_FOUND_ERROR' });
  });

  it('refuses an app-wide key on a tenant when it differs from the app', async () => {
    const withKey = uniqueAppId();
    await call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId: withKey, coreConfig: { password_hashing_alg: 'ARGON2' } },
    });
    const reply = await call('PUT', `/appid-${withKey}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: 't1', coreConfig: { password_hashing_alg: 'BCRYPT' } },
    });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(
      'Invalid core config: You cannot set different values for password_hashing_alg for the same appId',
    );
  });
});

describe('third-party provider configuration', () => {
  const path = (tenant = 'public') => app(`/${tenant}/recipe/multitenancy/config/thirdparty`);

  it('adds, replaces and removes a provider', async () => {
    const config = { thirdPartyId: ' google ', clients: [{ clientId: 'id-1', clientSecret: 's-1', scope: ['email'] }] };
    expect((await call('PUT', path(), { body: { config } })).json).toEqual({ status: 'OK', createdNew: true });
    const replaced = await call('PUT', path(), {
      body: { config: { thirdPartyId: 'google', clients: [{ clientId: 'id-2' }] } },
    });
    expect(replaced.json).toEqual({ status: 'OK', createdNew: false });
    const tenant = await call('GET', app('/recipe/multitenancy/tenant/v2'));
    expect(tenant.json.thirdParty.providers).toEqual([{ thirdPartyId: 'google', clients: [{ clientId: 'id-2' }] }]);

    const removed = await call('POST', `${path()}/remove`, { body: { thirdPartyId: 'google' } });
    expect(removed.json).toEqual({ status: 'OK', didConfigExist: true });
    const again = await call('POST', `${path()}/remove`, { body: { thirdPartyId: 'google' } });
    expect(again.json).toEqual({ status: 'OK', didConfigExist: false });
  });

  it.each([
    [{ thirdPartyId: '' }, 'thirdPartyId cannot be null or empty'],
    [
      { thirdPartyId: 'x', clients: [{ clientId: 'a' }, { clientId: 'b' }] },
      'Duplicate clientType was specified in the clients list.',
    ],
    [{ thirdPartyId: 'x', clients: [{ clientType: 'web' }] }, 'clientId cannot be null'],
    [{ thirdPartyId: 'x', clients: [{ clientId: 'a', scope: ['a', null] }] }, 'scope array cannot contain a null'],
    [
      { thirdPartyId: 'apple', clients: [{ clientId: 'a', additionalConfig: { keyId: 'k' } }] },
      'a non empty string value must be specified for keyId, teamId and privateKey in the additionalConfig for Apple provider',
    ],
    [
      { thirdPartyId: 'google-workspaces', clients: [{ clientId: 'a', additionalConfig: { hd: '' } }] },
      'hd in additionalConfig must be a non empty string value',
    ],
    [
      { thirdPartyId: 'boxy-saml', clients: [{ clientId: 'a', additionalConfig: { boxyURL: '' } }] },
      'a non empty string value must be specified for boxyURL in the additionalConfig for Boxy SAML provider',
    ],
  ])('refuses %j', async (config, message) => {
    const reply = await call('PUT', path(), { body: { config } });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(`Invalid third party config: ${message}`);
  });

  it('skips provider-specific checks with skipValidation', async () => {
    const reply = await call('PUT', path(), {
      body: { config: { thirdPartyId: 'apple', clients: [{ clientId: 'a' }] }, skipValidation: true },
    });
    expect(reply.json.status).toBe('OK');
  });

  it('needs an existing tenant and a config object', async () => {
    const unknown = await call('PUT', path('nope'), { body: { config: { thirdPartyId: 'x' } } });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('AppId or tenantId not found =>');
    const noConfig = await call('PUT', path(), { body: {} });
    expect(noConfig.text).toBe("Field name 'config' is invalid in JSON input");
  });
});
