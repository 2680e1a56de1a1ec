/**
 * Values DynamoDB cannot store — an item above 400 KB, nesting beyond 32 levels, numbers beyond
 * ±(2^53 − 1) or below 1e-130, empty map keys — in coreConfig, third-party provider configs, role
 * permissions and merged user metadata: each answers 400 with its message, and a later GET shows
 * the data as it was. Below the HTTP layer, the stores turn DynamoDB's own refusals into the same
 * kind of 400 (the safety net for anything validation lets through).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredValueRefusedError } from '#functions/shared/errors.js';
import { transact } from '#functions/storage/kit/index.js';
import { metadataEntity } from '#functions/storage/metadata-store.js';
import { storesOf, tenantStore } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { createImportWorker } from '#functions/workers/import-worker/handler.js';
import {
  call,
  captureLogs,
  createApp,
  expectNoSecrets,
  listAll,
  sqsEvent,
  stage,
  stagedCount,
  useOwnQueues,
  userCount,
} from './bulk-support.js';

const logs = captureLogs();
const SECRET = 'storable-SECRET-value-not-to-be-echoed';

beforeAll(async () => {
  await useOwnQueues(30);
});
afterAll(() => {
  logs.restore();
  // No refusal is logged as an error, and none quotes the value.
  expect(logs.lines.filter((line) => line.includes('"level":"error"'))).toEqual([]);
  expectNoSecrets(logs.lines, [SECRET]);
});

const NUMBER_RULE = 'between -9007199254740991 and 9007199254740991, and 0 or at least 1e-130 in magnitude';
const BCRYPT = '$2a$04$abcdefghijklmnopqrstuu5XwPGRwEj1m5dc8x1fFLhzmkmRkp4qC';

const nested = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
};

/** Many valid API keys: `count` × 41 bytes of JSON. */
const apiKeys = (count: number, seed = 'k') =>
  Array.from({ length: count }, (_, i) => `${seed}${String(i).padStart(39, '0')}`).join(',');

const tenantView = async (appId: string, tenantId = 'public') => {
  const res = await call('GET', `/appid-${appId}/${tenantId}/recipe/multitenancy/tenant/v2`);
  expect(res.status, res.text).toBe(200);
  return res.json;
};

describe('coreConfig', () => {
  it('too large for the tenant item: 400, the app and tenant unchanged', async () => {
    const appId = await createApp({ password_hashing_alg: 'ARGON2' }, ['t1']);
    const tenant = await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: 't1', coreConfig: { email_verification_token_lifetime: 1000 } },
    });
    expect(tenant.status, tenant.text).toBe(200);
    const [appBefore, tenantBefore] = [await tenantView(appId), await tenantView(appId, 't1')];

    const tooLarge = 'Invalid core config: coreConfig is too large. Max size is 32768 bytes.';
    // 20,000 API keys: 800 KB, whose digests alone would be 1.4 MB.
    for (const coreConfig of [{ api_keys: apiKeys(20_000) }, { api_keys: apiKeys(800) }]) {
      const app = await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId, coreConfig } });
      expect([app.status, app.text]).toEqual([400, tooLarge]);
    }
    const signer = await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: 't1', coreConfig: { firebase_password_hashing_signer_key: SECRET.repeat(20_000) } },
    });
    expect([signer.status, signer.text]).toEqual([400, tooLarge]);

    expect(await tenantView(appId)).toEqual(appBefore);
    expect(await tenantView(appId, 't1')).toEqual(tenantBefore);
    // What fits is stored: 790 keys (32,389 bytes of JSON, about 57 KB as digests). Last: the app
    // now wants an API key.
    const fits = await call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId, coreConfig: { api_keys: apiKeys(790, 'f') } },
    });
    expect(fits.status, fits.text).toBe(200);
  });

  it('a double DynamoDB cannot store: 400 naming the key, never the value; the config unchanged', async () => {
    const appId = await createApp({ refresh_token_validity: 200000 }, ['t1']);
    const [appBefore, tenantBefore] = [await tenantView(appId), await tenantView(appId, 't1')];
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['app', 'refresh_token_validity', { refresh_token_validity: 1e200 }, ''],
      ['app', 'refresh_token_validity', { refresh_token_validity: 2 ** 53 }, ''],
      ['app', 'refresh_token_validity', { refresh_token_validity: -1e20 }, ''],
      [
        'app',
        'access_token_dynamic_signing_key_update_interval',
        { access_token_dynamic_signing_key_update_interval: 1e-200 },
        '',
      ],
      ['tenant', 'access_token_signing_key_update_interval', { access_token_signing_key_update_interval: 1e300 }, 't1'],
    ];
    for (const [level, key, coreConfig, tenantId] of cases) {
      const res =
        level === 'app'
          ? await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId, coreConfig } })
          : await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, { body: { tenantId, coreConfig } });
      expect([res.status, res.text], key).toEqual([
        400,
        `Invalid core config: '${key}' must be a double ${NUMBER_RULE}`,
      ]);
      expect(res.text).not.toMatch(/e\+|1e-200|9007199254740992/);
    }
    expect(await tenantView(appId)).toEqual(appBefore);
    expect(await tenantView(appId, 't1')).toEqual(tenantBefore);

    // The largest and smallest storable magnitudes are stored and read back exactly.
    for (const value of [Number.MAX_SAFE_INTEGER, 1e-130, 0.1 + 0.2]) {
      const res = await call('PUT', '/recipe/multitenancy/app/v2', {
        body: { appId, coreConfig: { access_token_dynamic_signing_key_update_interval: value } },
      });
      expect(res.status, res.text).toBe(200);
      expect((await tenantView(appId)).coreConfig.access_token_dynamic_signing_key_update_interval).toBe(value);
    }
  });
});

describe('third-party provider configuration', () => {
  const put = (appId: string, config: Record<string, unknown>) =>
    call('PUT', `/appid-${appId}/t1/recipe/multitenancy/config/thirdparty`, { body: { config, skipValidation: true } });

  it('too large, too deep, with numbers DynamoDB cannot store or an empty key: 400, the providers unchanged', async () => {
    const appId = await createApp({}, ['t1']);
    const first = await put(appId, { thirdPartyId: 'custom-a', clients: [{ clientId: 'a', clientSecret: SECRET }] });
    expect(first.status, first.text).toBe(200);
    const before = await tenantView(appId, 't1');

    const cases: [Record<string, unknown>, string][] = [
      [
        { thirdPartyId: 'custom-b', clients: [{ clientId: SECRET.repeat(4_000) }] },
        'Invalid third party config: the providers of a tenant are too large. Max size is 131072 bytes.',
      ],
      [
        { thirdPartyId: 'custom-a', clients: [{ clientId: 'a', clientSecret: SECRET.repeat(12_000) }] },
        'Invalid third party config: the providers of a tenant are too large. Max size is 131072 bytes.',
      ],
      [
        { thirdPartyId: 'custom-b', x: nested(16) },
        'Invalid third party config: config is nested too deeply. Max depth is 16.',
      ],
      [
        { thirdPartyId: 'custom-b', clients: [{ clientId: 'b', n: 1e200 }] },
        `Invalid third party config: numbers in config must be ${NUMBER_RULE}`,
      ],
      [
        { thirdPartyId: 'custom-b', x: [2 ** 60] },
        `Invalid third party config: numbers in config must be ${NUMBER_RULE}`,
      ],
      [
        { thirdPartyId: 'custom-b', x: { y: -1e-300 } },
        `Invalid third party config: numbers in config must be ${NUMBER_RULE}`,
      ],
      [
        { thirdPartyId: 'custom-b', x: { '': SECRET } },
        'Invalid third party config: config cannot contain an empty key',
      ],
    ];
    for (const [config, message] of cases) {
      const res = await put(appId, config);
      expect([res.status, res.text]).toEqual([400, message]);
    }
    // 5,000 levels (sent as text: too deep for JSON.stringify here) are measured without recursion.
    const deep = `{"config":{"thirdPartyId":"custom-b","x":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}}`;
    const deepRes = await call('PUT', `/appid-${appId}/t1/recipe/multitenancy/config/thirdparty`, { rawBody: deep });
    expect([deepRes.status, deepRes.text]).toEqual([
      400,
      'Invalid third party config: config is nested too deeply. Max depth is 16.',
    ]);
    expect(await tenantView(appId, 't1')).toEqual(before);

    // At the depth limit it is stored, and a removal is possible whatever the size.
    const deepest = await put(appId, { thirdPartyId: 'custom-c', x: nested(15) });
    expect(deepest.status, deepest.text).toBe(200);
    const removed = await call('POST', `/appid-${appId}/t1/recipe/multitenancy/config/thirdparty/remove`, {
      body: { thirdPartyId: 'custom-c' },
    });
    expect(removed.json).toEqual({ status: 'OK', didConfigExist: true });
    expect(await tenantView(appId, 't1')).toEqual(before);
  });
});

describe('role permissions', () => {
  it('beyond 350,000 bytes for one role: 400, the permissions unchanged', async () => {
    const appId = await createApp();
    const permission = (i: number) => `${'p'.repeat(240)}${String(i).padStart(6, '0')}`;
    const perms = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => permission(from + i));
    const message = 'The permissions of a role are too large. Max size is 350000 bytes.';

    const whole = await call('PUT', `/appid-${appId}/recipe/role`, {
      body: { role: 'r', permissions: perms(0, 2_000) },
    });
    expect([whole.status, whole.text]).toEqual([400, message]);
    const none = await call('GET', `/appid-${appId}/recipe/role/permissions?role=r`);
    expect(none.json).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });

    const half = await call('PUT', `/appid-${appId}/recipe/role`, {
      body: { role: 'r', permissions: perms(0, 1_000) },
    });
    expect(half.json).toEqual({ status: 'OK', createdNewRole: true });
    const more = await call('PUT', `/appid-${appId}/recipe/role`, {
      body: { role: 'r', permissions: perms(900, 1_500) },
    });
    expect([more.status, more.text]).toEqual([400, message]);
    const after = await call('GET', `/appid-${appId}/recipe/role/permissions?role=r`);
    expect(after.json).toEqual({ status: 'OK', permissions: perms(0, 1_000) });
    // Permissions the role already has add nothing, so they are accepted.
    const again = await call('PUT', `/appid-${appId}/recipe/role`, {
      body: { role: 'r', permissions: perms(0, 1_000) },
    });
    expect(again.json).toEqual({ status: 'OK', createdNewRole: false });
  });
});

describe('user metadata merged at import', () => {
  const big = (key: string) => ({ [key]: key.repeat(340_000) });
  const user = (externalUserId: string, email: string, userMetadata: Record<string, unknown>) => ({
    externalUserId,
    userMetadata,
    loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: BCRYPT, hashingAlgorithm: 'BCRYPT' }],
  });
  const metadataOf = async (appId: string, userId: string) =>
    (await call('GET', `/appid-${appId}/recipe/user/metadata?userId=${userId}`)).json;

  it('beyond the limit once merged with what is stored: the single import 400s, the worker fails the row; nothing written', async () => {
    const appId = await createApp();
    for (const id of ['u1', 'w1']) {
      const put = await call('PUT', `/appid-${appId}/recipe/user/metadata`, {
        body: { userId: id, metadataUpdate: big('a') },
      });
      expect(put.status).toBe(200);
    }
    const before = await metadataOf(appId, 'u1');

    const single = await call('POST', `/appid-${appId}/bulk-import/import`, { body: user('u1', 'u1@x.io', big('b')) });
    expect([single.status, single.text]).toEqual([400, 'userMetadata is too large. Max size is 350000 bytes.']);
    expect(await metadataOf(appId, 'u1')).toEqual(before);
    expect(await userCount(appId)).toBe(0);

    // Replacing the stored key instead fits.
    const replaced = await call('POST', `/appid-${appId}/bulk-import/import`, {
      body: user('u1', 'u1@x.io', { a: 'replaced' }),
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect((await metadataOf(appId, 'u1')).metadata).toEqual({ a: 'replaced' });

    // The worker: the row fails at once (a retry would fail the same way), metadata unchanged.
    const staged = await stage(appId, [user('w1', 'w1@x.io', big('b'))]);
    expect(staged.status, staged.text).toBe(200);
    const ids = (await listAll(appId, 'NEW')).map((row) => row.id as string);
    expect(await createImportWorker()(sqsEvent(appId, ids))).toEqual({ batchItemFailures: [] });
    const failed = await listAll(appId, 'FAILED');
    expect(failed.map((row) => row.errorMessage)).toEqual([
      'Import failed: StoredValueRefusedError: userMetadata is too large. Max size is 350000 bytes.',
    ]);
    expect(await stagedCount(appId, 'PROCESSING')).toBe(0);
    expect((await metadataOf(appId, 'w1')).metadata).toEqual(big('a'));
    expect(await userCount(appId)).toBe(1);
  });
});

describe('DynamoDB refusals that reach the table (the safety net)', () => {
  it('a tenant whose factor lists overflow its item: 400 naming the tenant configuration, the tenant unchanged', async () => {
    const appId = await createApp({}, ['t1']);
    const before = await tenantView(appId, 't1');
    const factors = Array.from({ length: 5_000 }, (_, i) => `custom-factor-${'f'.repeat(80)}-${i}`);
    const res = await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: 't1', firstFactors: factors },
    });
    expect([res.status, res.text]).toEqual([
      400,
      "The tenant's configuration is too large to store: a DynamoDB item holds at most 400 KB.",
    ]);
    expect(await tenantView(appId, 't1')).toEqual(before);
  });

  it('the stores answer a StoredValueRefusedError with the subject and the reason, never the value', async () => {
    const appId = await createApp({}, ['t1']);
    const { roles } = storesOf(baseTable);
    const refusal = async (write: () => Promise<unknown>) => {
      const error = await write().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoredValueRefusedError);
      const message = (error as Error).message;
      expect(message).not.toContain(SECRET);
      return message;
    };
    const perms = Array.from({ length: 2_000 }, (_, i) => `${SECRET}${'p'.repeat(200)}${i}`);
    expect(await refusal(() => roles.forApp(appId).createRoleOrAddPermissions('big', perms))).toBe(
      "The role's permission set is too large to store: a DynamoDB item holds at most 400 KB.",
    );
    expect((await call('GET', `/appid-${appId}/recipe/role/permissions?role=big`)).json).toEqual({
      status: 'UNKNOWN_ROLE_ERROR',
    });

    const tenant = await tenantStore.getTenant(appId, 't1');
    if (!tenant) throw new Error('tenant t1 missing');
    const save = (change: Record<string, unknown>) => () =>
      tenantStore.saveTenant({ ...tenant, ...change, updatedAt: tenant.updatedAt + 1 }, tenant.updatedAt);
    expect(await refusal(save({ coreConfig: { x: 1e200 } }))).toBe(
      `The tenant's configuration holds a number DynamoDB cannot store: numbers must be ${NUMBER_RULE}.`,
    );
    expect(await refusal(save({ coreConfig: { x: 1e-200 } }))).toBe(
      `The tenant's configuration holds a number DynamoDB cannot store: numbers must be ${NUMBER_RULE}.`,
    );
    const provider = (config: Record<string, unknown>) => ({ thirdPartyProviders: [{ thirdPartyId: 'p', ...config }] });
    expect(await refusal(save(provider({ x: nested(40) })))).toBe(
      "The tenant's configuration is nested too deeply to store: DynamoDB holds at most 32 levels.",
    );
    expect(await refusal(save(provider({ x: { '': SECRET } })))).toBe(
      "The tenant's configuration holds an empty key, which DynamoDB cannot store.",
    );
    expect(await refusal(save(provider({ x: SECRET.repeat(12_000) })))).toBe(
      "The tenant's configuration is too large to store: a DynamoDB item holds at most 400 KB.",
    );
    expect(await tenantStore.getTenant(appId, 't1')).toEqual(tenant);

    // A transaction: all or nothing, and the refused item named.
    const owner = { appId, userId: 'tx' };
    const metadataItem = (text: string) => ({
      Put: {
        TableName: baseTable.name,
        Item: metadataEntity.item(owner, { userId: 'tx', metadataJson: text, version: 1 }),
      },
    });
    expect(await refusal(() => transact(baseTable, [metadataItem(SECRET.repeat(12_000))]))).toBe(
      "The user's metadata is too large to store: a DynamoDB item holds at most 400 KB.",
    );
    expect((await call('GET', `/appid-${appId}/recipe/user/metadata?userId=tx`)).json).toEqual({
      status: 'OK',
      metadata: {},
    });
  });
});
