import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { call, uniqueAppId } from '../helpers/core-client.js';

const CDI = (v: string) => ({ headers: { 'cdi-version': v } });
const putAppV2 = (body: unknown, prefix = '') => call('PUT', `${prefix}/recipe/multitenancy/app/v2`, { body });
const putAppLegacy = (body: unknown, cdi: string, prefix = '') =>
  call('PUT', `${prefix}/recipe/multitenancy/app`, { body, ...CDI(cdi) });

async function appTenants(appId: string, api: 'v2' | 'legacy' = 'v2', cdi = '5.4') {
  const path = api === 'v2' ? '/recipe/multitenancy/app/list/v2' : '/recipe/multitenancy/app/list';
  const list = await call('GET', path, CDI(cdi));
  expect(list.status, list.text).toBe(200);
  return list.json.apps.find((a: any) => a.appId === appId)?.tenants as any[] | undefined;
}

describe('PUT /recipe/multitenancy/app/v2', () => {
  it('creates an app whose public tenant carries the given factors and config', async () => {
    const appId = uniqueAppId();
    const created = await putAppV2({
      appId,
      firstFactors: ['emailpassword', 'thirdparty', 'otp-email'],
      coreConfig: { email_verification_token_lifetime: 1000 },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.contentType).toContain('application/json');
    expect(created.json).toEqual({ status: 'OK', createdNew: true });

    const tenants = await appTenants(appId);
    expect(tenants).toHaveLength(1);
    const [tenant] = tenants!;
    expect(Object.keys(tenant).sort()).toEqual(['coreConfig', 'firstFactors', 'tenantId', 'thirdParty']);
    expect(tenant.tenantId).toBe('public');
    expect(tenant.thirdParty).toEqual({ providers: [] });
    expect(tenant.firstFactors).toEqual(['emailpassword', 'thirdparty', 'otp-email']);
    expect(tenant.coreConfig).toEqual({ email_verification_token_lifetime: 1000 });

    const again = await putAppV2({ appId });
    expect(again.json).toEqual({ status: 'OK', createdNew: false });
  });

  it('merges coreConfig on update and removes a key set to null', async () => {
    const appId = uniqueAppId();
    await putAppV2({ appId, coreConfig: { access_token_validity: 3600 } });
    await putAppV2({ appId, coreConfig: { email_verification_token_lifetime: 2000 } });
    let [tenant] = (await appTenants(appId))!;
    expect(tenant.coreConfig).toEqual({ access_token_validity: 3600, email_verification_token_lifetime: 2000 });
    await putAppV2({ appId, coreConfig: { email_verification_token_lifetime: null } });
    [tenant] = (await appTenants(appId))!;
    expect(tenant.coreConfig).toEqual({ access_token_validity: 3600 });
  });

  it('creates an app with nothing: no firstFactors in the v2 tenant view', async () => {
    const appId = uniqueAppId();
    expect((await putAppV2({ appId })).json).toEqual({ status: 'OK', createdNew: true });
    const tenant = await call('GET', `/appid-${appId}/public/recipe/multitenancy/tenant/v2`);
    expect(tenant.json).toEqual({ tenantId: 'public', thirdParty: { providers: [] }, coreConfig: {}, status: 'OK' });
  });

  it('treats app ids case-insensitively and stores them lower-cased', async () => {
    const suffix = uniqueAppId('x');
    for (const raw of [`A-B-1-${suffix}`, `CAPS1-${suffix}`, `MixedCase-${suffix}`]) {
      expect((await putAppV2({ appId: raw })).json).toEqual({ status: 'OK', createdNew: true });
      const tenant = await call('GET', `/appid-${raw}/recipe/multitenancy/tenant/v2`);
      expect(tenant.json.status).toBe('OK');
      expect(await appTenants(raw.toLowerCase())).toHaveLength(1);
    }
  });

  it.each([
    ['a_b', 'appId can only contain letters, numbers and hyphens'],
    ['appid-hello', "appId must not start with 'appid-'"],
    ['appid-1234', "appId must not start with 'appid-'"],
    ['abcd+1234', 'appId can only contain letters, numbers and hyphens'],
    ['   ', 'appId should not be an empty String'],
  ])('refuses appId %j', async (appId, message) => {
    const reply = await putAppV2({ appId });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(message);
    expect(reply.contentType).toContain('text/plain');
  });

  it.each([
    [{ access_token_validity: 'abcd' }, "Invalid core config: 'access_token_validity' must be of type long"],
    [{ access_token_validity: '' }, "Invalid core config: 'access_token_validity' must be of type long"],
    [{ access_token_validity: 'null' }, "Invalid core config: 'access_token_validity' must be of type long"],
    [{ disable_telemetry: 'abcd' }, "Invalid core config: 'disable_telemetry' must be of type boolean"],
    [
      { postgresql_connection_pool_size: 5 },
      'Invalid core config: Invalid config key: postgresql_connection_pool_size',
    ],
    [
      { access_token_validity: 3600, refresh_token_validity: 3 },
      "Invalid core config: 'refresh_token_validity' must be strictly greater than 'access_token_validity'.",
    ],
    [
      { bcrypt_log_rounds: 12 },
      "Invalid core config: bcrypt_log_rounds can only be set via the core's base config setting",
    ],
  ])('refuses coreConfig %j', async (coreConfig, message) => {
    const reply = await putAppV2({ appId: uniqueAppId(), coreConfig });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(message);
  });

  it('takes numbers and booleans written as text, keeps them as given, and uses the values they stand for', async () => {
    const appId = uniqueAppId();
    const coreConfig = {
      access_token_dynamic_signing_key_update_interval: '0.001',
      access_token_validity: '+120',
      refresh_token_validity: ' 5 ',
      mfa_enabled: 'TRUE',
    };
    const reply = await putAppV2({ appId, coreConfig });
    expect(reply.json).toEqual({ status: 'OK', createdNew: true });
    const [tenant] = (await appTenants(appId))!;
    expect(tenant.coreConfig).toEqual(coreConfig);
    // The key interval is 0.001 h (3.6 s): the JWKS may be cached until the next key is due, at most 3 s.
    const jwks = await call('GET', `/appid-${appId}/.well-known/jwks.json`);
    expect(jwks.status, jwks.text).toBe(200);
    expect(jwks.json.keys.length).toBeGreaterThan(0);
    expect(Number(/max-age=(\d+)/.exec(jwks.headers['cache-control'] ?? '')?.[1])).toBeLessThanOrEqual(3);
    // The range rules see the numbers: 5 minutes outlive a 120 s access token, 1 minute does not.
    const tooShort = await putAppV2({ appId, coreConfig: { refresh_token_validity: '1' } });
    expect(tooShort.text).toBe(
      "Invalid core config: 'refresh_token_validity' must be strictly greater than 'access_token_validity'.",
    );
  });

  it('accepts null for a config key', async () => {
    const reply = await putAppV2({ appId: uniqueAppId(), coreConfig: { access_token_validity: null } });
    expect(reply.json).toEqual({ status: 'OK', createdNew: true });
  });

  it('sets, keeps, replaces and clears firstFactors and requiredSecondaryFactors', async () => {
    const appId = uniqueAppId();
    await putAppV2({ appId, firstFactors: ['emailpassword', 'custom-factor'], requiredSecondaryFactors: ['totp'] });
    let [t] = (await appTenants(appId))!;
    expect(t.firstFactors).toEqual(['emailpassword', 'custom-factor']);
    expect(t.requiredSecondaryFactors).toEqual(['totp']);
    expect(Object.keys(t)).toHaveLength(5);

    await putAppV2({ appId, coreConfig: {} });
    [t] = (await appTenants(appId))!;
    expect(t.firstFactors).toEqual(['emailpassword', 'custom-factor']);

    await putAppV2({ appId, firstFactors: null, requiredSecondaryFactors: [] });
    [t] = (await appTenants(appId))!;
    expect(Object.keys(t).sort()).toEqual(['coreConfig', 'tenantId', 'thirdParty']);
  });

  it.each([
    [{ firstFactors: ['emailpassword', 'emailpassword'] }, 'firstFactors input should not contain duplicate values'],
    [
      { requiredSecondaryFactors: ['totp', 'totp'] },
      'requiredSecondaryFactors input should not contain duplicate values',
    ],
    [{ firstFactors: ['email password'] }, 'firstFactors should contain only 0-9,a-z,A-Z,_,.,- characters'],
    [
      { requiredSecondaryFactors: ['a*b'] },
      'requiredSecondaryFactors should contain only 0-9,a-z,A-Z,_,.,- characters',
    ],
    [{ firstFactors: [1] }, "Field name 'firstFactors' is invalid in JSON input"],
    [{ coreConfig: 'x' }, "Field name 'coreConfig' is invalid in JSON input"],
    [{ emailPasswordEnabled: true }, 'emailPasswordEnabled is not a valid input for this API'],
    [{ thirdPartyEnabled: true }, 'thirdParty is not a valid input for this API'],
    [{ passwordlessEnabled: true }, 'passwordless is not a valid input for this API'],
  ])('refuses %j', async (fields, message) => {
    const reply = await putAppV2({ appId: uniqueAppId(), ...fields });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(message);
  });

  it('refuses to modify the base config', async () => {
    const reply = await putAppV2({ appId: 'public', coreConfig: { access_token_validity: 10 } });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe('Cannot modify base config');
  });

  it('answers Invalid Json Input for malformed or non-object bodies', async () => {
    for (const rawBody of ['{"appId":', '[1,2]', '"text"', '']) {
      const reply = await call('PUT', '/recipe/multitenancy/app/v2', { rawBody });
      expect(reply.status, rawBody).toBe(400);
      expect(reply.text).toBe('Invalid Json Input');
    }
  });
});

describe('legacy PUT /recipe/multitenancy/app', () => {
  it('creates an app with all recipes enabled (CDI 3.0 and 5.0 shapes)', async () => {
    const appId = uniqueAppId();
    expect((await putAppLegacy({ appId }, '3.0')).json).toEqual({ status: 'OK', createdNew: true });
    const [t3] = (await appTenants(appId, 'legacy', '3.0'))!;
    expect(t3).toEqual({
      tenantId: 'public',
      emailPassword: { enabled: true },
      thirdParty: { enabled: true, providers: [] },
      passwordless: { enabled: true },
      coreConfig: {},
    });
    const t5 = await call('GET', `/appid-${appId}/recipe/multitenancy/tenant`, CDI('5.0'));
    expect(Object.keys(t5.json)).toHaveLength(6);
  });

  it('disabling a recipe under CDI 3.0 hides it from the legacy view', async () => {
    const appId = uniqueAppId();
    await putAppLegacy({ appId, thirdPartyEnabled: false }, '3.0');
    const [t] = (await appTenants(appId, 'legacy', '3.0'))!;
    expect(t.emailPassword.enabled).toBe(true);
    expect(t.thirdParty.enabled).toBe(false);
    expect(t.passwordless.enabled).toBe(true);
  });

  it('shows firstFactors under CDI 5.0 (7 keys with status) and refuses empty lists', async () => {
    const appId = uniqueAppId();
    await putAppLegacy({ appId, firstFactors: ['emailpassword'] }, '5.0');
    const tenant = await call('GET', `/appid-${appId}/recipe/multitenancy/tenant`, CDI('5.0'));
    expect(Object.keys(tenant.json)).toHaveLength(7);
    expect(tenant.json.firstFactors).toEqual(['emailpassword']);

    const empty = await putAppLegacy({ appId, firstFactors: [] }, '5.0');
    expect(empty.text).toBe('firstFactors cannot be empty. Set null instead to remove all first factors.');
    const emptySecondary = await putAppLegacy({ appId, requiredSecondaryFactors: [] }, '5.0');
    expect(emptySecondary.text).toBe(
      'requiredSecondaryFactors cannot be empty. Set null instead to remove all required secondary factors.',
    );
  });

  it.each([
    ['emailPasswordEnabled', 'firstFactors', 'emailpassword', 'emailPassword'],
    ['passwordlessEnabled', 'firstFactors', 'otp-email', 'passwordless'],
    ['thirdPartyEnabled', 'requiredSecondaryFactors', 'thirdparty', 'thirdParty'],
  ])('refuses %s:false with a factor of that recipe in %s', async (flag, list, factor, recipe) => {
    const reply = await putAppLegacy({ appId: uniqueAppId(), [flag]: false, [list]: [factor] }, '5.0');
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(
      `Invalid core config: ${list} should not contain '${factor}' because ${recipe} is disabled for the tenant.`,
    );
  });

  it('refuses non-boolean recipe switches', async () => {
    const reply = await putAppLegacy({ appId: uniqueAppId(), emailPasswordEnabled: 'true' }, '5.0');
    expect(reply.text).toBe("Field name 'emailPasswordEnabled' is invalid in JSON input");
  });
});

describe('views across CDI versions', () => {
  it('app created via v2 with [emailpassword, otp-phone]', async () => {
    const appId = uniqueAppId();
    await putAppV2({ appId, firstFactors: ['emailpassword', 'otp-phone'] });
    const v3 = await call('GET', `/appid-${appId}/recipe/multitenancy/tenant`, CDI('3.0'));
    expect(v3.json.emailPassword.enabled).toBe(true);
    expect(v3.json.passwordless.enabled).toBe(true);
    expect(v3.json.thirdParty.enabled).toBe(false);
    const v5 = await call('GET', `/appid-${appId}/recipe/multitenancy/tenant`, CDI('5.0'));
    expect([v5.json.emailPassword.enabled, v5.json.thirdParty.enabled, v5.json.passwordless.enabled]).toEqual([
      true,
      true,
      true,
    ]);
    expect(v5.json.firstFactors).toEqual(['emailpassword', 'otp-phone']);
    const v2 = await call('GET', `/appid-${appId}/recipe/multitenancy/tenant/v2`);
    expect(Object.keys(v2.json)).toHaveLength(5);
  });
});

describe('permissions', () => {
  it('allows creating an app from the base or from the same app only', async () => {
    const a1 = uniqueAppId();
    const a2 = uniqueAppId();
    expect((await putAppV2({ appId: a1 })).status).toBe(200);
    expect((await putAppV2({ appId: a1 }, `/appid-${a1}`)).json).toEqual({ status: 'OK', createdNew: false });
    const cross = await putAppV2({ appId: a2 }, `/appid-${a1}`);
    expect(cross.status).toBe(403);
    expect(cross.text).toBe('You must use the public or same app to add/update an app');

    await call('PUT', `/appid-${a1}/recipe/multitenancy/tenant/v2`, { body: { tenantId: 't1' } });
    const fromTenant = await putAppV2({ appId: a1 }, `/appid-${a1}/t1`);
    expect(fromTenant.status).toBe(403);
    expect(fromTenant.text).toBe('You must use the public or same app to add/update an app');
  });

  it('lists apps only from the public app and tenant', async () => {
    const a1 = uniqueAppId();
    await putAppV2({ appId: a1 });
    await call('PUT', `/appid-${a1}/recipe/multitenancy/tenant/v2`, { body: { tenantId: 't1' } });
    const message =
      'Only the public tenantId and public appId is allowed to list all apps associated with this connection uri domain';
    for (const prefix of [`/appid-${a1}`, `/appid-${a1}/t1`]) {
      const reply = await call('GET', `${prefix}/recipe/multitenancy/app/list/v2`);
      expect(reply.status).toBe(403);
      expect(reply.text).toBe(message);
    }
  });

  it('deletes apps only from the public app and tenant, never the public app', async () => {
    const a1 = uniqueAppId();
    await putAppV2({ appId: a1 });
    await call('PUT', `/appid-${a1}/recipe/multitenancy/tenant/v2`, { body: { tenantId: 't1' } });
    const message = 'Only the public tenantId and public appId is allowed to delete an app';
    for (const prefix of [`/appid-${a1}`, `/appid-${a1}/t1`]) {
      const reply = await call('POST', `${prefix}/recipe/multitenancy/app/remove`, { body: { appId: a1 } });
      expect(reply.status).toBe(403);
      expect(reply.text).toBe(message);
    }
    const pub = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId: 'public' } });
    expect(pub.status).toBe(403);
    expect(pub.text).toBe('Cannot delete the public app, use remove connection uri domain API instead');
  });
});

describe('POST /recipe/multitenancy/app/remove', () => {
  it('refuses while other tenants exist, then deletes everything the app owns', async () => {
    const appId = uniqueAppId();
    await putAppV2({ appId });
    await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, { body: { tenantId: 't1' } });
    const blocked = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId } });
    expect(blocked.status).toBe(403);
    expect(blocked.text).toBe(
      'Please delete all tenants except the public tenant for this app before calling the delete API',
    );
    await call('POST', `/appid-${appId}/recipe/multitenancy/tenant/remove`, { body: { tenantId: 't1' } });

    const appsBefore = (await call('GET', '/recipe/multitenancy/app/list/v2')).json.apps.length;
    const removed = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId } });
    expect(removed.json).toEqual({ status: 'OK', didExist: true });
    const appsAfter = (await call('GET', '/recipe/multitenancy/app/list/v2')).json.apps.length;
    expect(appsAfter).toBe(appsBefore - 1);

    const again = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId } });
    expect(again.json).toEqual({ status: 'OK', didExist: false });

    const gone = await call('GET', `/appid-${appId}/recipe/multitenancy/tenant/list/v2`);
    expect(gone.status).toBe(400);
    expect(gone.text).toBe(
      `AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, ${appId}, public)`,
    );
    // Test-only Scan: nothing with the app's partition prefix may survive.
    const leftovers = await getDocumentClient().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'PK = :app OR begins_with(PK, :prefix)',
        ExpressionAttributeValues: { ':app': `APP#${appId}`, ':prefix': `APP#${appId}#` },
      }),
    );
    expect(leftovers.Items ?? []).toEqual([]);
  });

  it('validates the body', async () => {
    const missing = await call('POST', '/recipe/multitenancy/app/remove', { body: {} });
    expect(missing.text).toBe("Field name 'appId' is invalid in JSON input");
    const bad = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId: 'a_b' } });
    expect(bad.text).toBe('appId can only contain letters, numbers and hyphens');
  });
});
