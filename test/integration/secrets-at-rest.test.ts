/**
 * Imported TOTP secrets and third-party providers' secrets are sealed at rest (docs/security.md "Credentials
 * at rest"): no item of the table nor of its indexes holds them in clear; the answers the SDK
 * reads (tenant get and list, v2 and legacy) are what they were; the app list shows fingerprints;
 * values stored in clear before this keep working and are sealed on their next write.
 */
import { randomBytes } from 'node:crypto';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { credentialFingerprint } from '#functions/contract/credential-fingerprints.js';
import { UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { appPartition, tenantSortKey } from '#functions/storage/keys/apps.js';
import { userDataIndexPartitionOf } from '#functions/storage/keys/metadata.js';
import { totpDeviceSortKey, userPartition } from '#functions/storage/keys/totp.js';
import { totpStoreOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { createImportWorker } from '#functions/workers/import-worker/handler.js';
import {
  call,
  createApp,
  importUser,
  itemText,
  listAll,
  readItem,
  sqsEvent,
  stage,
  useBulkTestFile,
} from './bulk-support.js';

const TOTP_SECRET = 'JBSWY3DPEHPK3PXPSEALEDTOTP';
const TOTP_SECRET_2 = 'KRSXG5CTMVRXEZLUSEALEDTWO';
const CLIENT_SECRET = `client-secret-${randomBytes(8).toString('hex')}`;
const WEB_SECRET = `web-secret-${randomBytes(8).toString('hex')}`;
const APPLE_KEY = `-----BEGIN PRIVATE KEY-----\nMIGT${randomBytes(24).toString('base64')}\n-----END PRIVATE KEY-----`;
const BOXY_KEY = `boxy-api-key-${randomBytes(8).toString('hex')}`;
const SECRETS = [TOTP_SECRET, TOTP_SECRET_2, CLIENT_SECRET, WEB_SECRET, APPLE_KEY, BOXY_KEY];
const { logs } = useBulkTestFile(SECRETS);

const ddb = () => getDocumentClient();
async function indexItems(index: string, pk: string): Promise<Record<string, any>[]> {
  const out = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: index,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': `${index}PK` },
      ExpressionAttributeValues: { ':pk': pk },
    }),
  );
  return out.Items ?? [];
}
const expectNoClearSecret = (value: Record<string, any> | undefined) => {
  expect(value).toBeDefined();
  for (const secret of SECRETS) expect(itemText(value!).includes(secret), 'a clear secret at rest').toBe(false);
};

const worker = createImportWorker();
const totpUser = (email: string, secretKey: string, deviceName = 'phone') => ({
  externalUserId: `ext-${email}`,
  totpDevices: [{ secretKey, deviceName, period: 30, skew: 1 }],
  loginMethods: [{ recipeId: 'emailpassword', email, plainTextPassword: 'totp-user-password-1' }],
});

describe('imported TOTP secrets', () => {
  it('are sealed in the device item and its index copy, listed without them, and opened by the store', async () => {
    const appId = await createApp({ mfa_enabled: true }, [], 'sealed');
    const single = await importUser(appId, totpUser('single@x.com', TOTP_SECRET));
    expect(single.status, single.text).toBe(200);
    const staged = await stage(appId, [totpUser('staged@x.com', TOTP_SECRET_2, 'laptop')]);
    expect(staged.status, staged.text).toBe(200);
    const ids = (await listAll(appId)).map((u) => u.id as string);
    expect((await worker(sqsEvent(appId, ids))).batchItemFailures).toEqual([]);
    expect(await listAll(appId)).toEqual([]);

    for (const [userId, device, secret] of [
      ['ext-single@x.com', 'phone', TOTP_SECRET],
      ['ext-staged@x.com', 'laptop', TOTP_SECRET_2],
    ] as const) {
      const stored = await readItem({ PK: userPartition(appId, userId), SK: totpDeviceSortKey(device) });
      expectNoClearSecret(stored);
      expect(stored!.secretSealed).toBeInstanceOf(Uint8Array);
      // GSI3 projects the whole item: its copy holds the sealed form only.
      const copies = (await indexItems('GSI3', userDataIndexPartitionOf(appId, userId))).filter(
        (i) => i.entityType === 'TOTP_DEVICE',
      );
      expect(copies).toHaveLength(1);
      expectNoClearSecret(copies[0]);
      expect(await totpStoreOf(baseTable).forApp(appId).openTotpDeviceSecret(userId, device)).toBe(secret);
      const listed = await call('GET', `/appid-${appId}/recipe/totp/device/list?userId=${encodeURIComponent(userId)}`);
      expect(listed.json).toEqual({ status: 'OK', devices: [{ name: device, period: 30, skew: 1, verified: true }] });
    }
    expect(await totpStoreOf(baseTable).forApp(appId).openTotpDeviceSecret('ext-single@x.com', 'none')).toBeUndefined();
  });

  it('stored in clear before still read; a sealed one copied to another device does not open', async () => {
    const appId = await createApp({ mfa_enabled: true }, [], 'sealed');
    expect((await importUser(appId, totpUser('moved@x.com', TOTP_SECRET))).status).toBe(200);
    const key = { PK: userPartition(appId, 'ext-moved@x.com'), SK: totpDeviceSortKey('phone') };
    const sealed = (await readItem(key))!;
    // Another device of the same user carrying this device's sealed secret.
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...sealed, SK: totpDeviceSortKey('tablet'), deviceName: 'tablet' },
      }),
    );
    await expect(
      totpStoreOf(baseTable).forApp(appId).openTotpDeviceSecret('ext-moved@x.com', 'tablet'),
    ).rejects.toBeInstanceOf(UnreadableSecretError);
    // A device as this core wrote it before secrets were sealed.
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET secretKey = :s REMOVE secretSealed',
        ExpressionAttributeValues: { ':s': TOTP_SECRET },
      }),
    );
    expect(await totpStoreOf(baseTable).forApp(appId).openTotpDeviceSecret('ext-moved@x.com', 'phone')).toBe(
      TOTP_SECRET,
    );
  });
});

describe('third-party provider secrets', () => {
  const providers = [
    {
      thirdPartyId: 'google',
      clients: [
        { clientType: 'web', clientId: 'g-web', clientSecret: WEB_SECRET, scope: ['email'] },
        { clientType: 'mobile', clientId: 'g-mobile', clientSecret: CLIENT_SECRET, forcePKCE: true },
      ],
    },
    {
      thirdPartyId: 'apple',
      clients: [{ clientId: 'a-1', additionalConfig: { keyId: 'K1', teamId: 'T1', privateKey: APPLE_KEY } }],
    },
    {
      thirdPartyId: 'boxy-saml',
      name: 'SAML',
      clients: [{ clientId: 'b-1', additionalConfig: { boxyURL: 'https://boxy.example.com', boxyAPIKey: BOXY_KEY } }],
    },
    { thirdPartyId: 'github', clients: [{ clientId: 'gh-1' }] },
  ];

  async function appWithProviders(tenantId = 'public') {
    const appId = await createApp({}, tenantId === 'public' ? [] : [tenantId], 'sealed');
    for (const config of providers) {
      const put = await call('PUT', `/appid-${appId}/${tenantId}/recipe/multitenancy/config/thirdparty`, {
        body: { config },
      });
      expect(put.status, put.text).toBe(200);
    }
    return appId;
  }
  const tenantItem = (appId: string, tenantId = 'public') =>
    readItem({ PK: appPartition(appId), SK: tenantSortKey(tenantId) });
  const get = (appId: string, path: string) => call('GET', `/appid-${appId}${path}`);

  it('are sealed in the tenant item and its app-list index copy; the reads the SDK makes show them as put', async () => {
    const appId = await appWithProviders();
    const stored = await tenantItem(appId);
    expectNoClearSecret(stored);
    expect(stored!.thirdPartyProviders[0].clients[0].clientSecret).toMatch(/^sealed:v1:[0-9a-f]{64}:/);
    expect(stored!.thirdPartyProviders[3]).toEqual(providers[3]);
    const listed = (await indexItems('GSI1', 'APPS')).filter((i) => i.appId === appId);
    expect(listed).toHaveLength(1);
    expectNoClearSecret(listed[0]);

    expect((await get(appId, '/recipe/multitenancy/tenant/v2')).json.thirdParty.providers).toEqual(providers);
    expect((await get(appId, '/recipe/multitenancy/tenant')).json.thirdParty.providers).toEqual(providers);
    const tenants = (await get(appId, '/recipe/multitenancy/tenant/list/v2')).json.tenants;
    expect(tenants.map((t: any) => t.thirdParty.providers)).toEqual([providers]);
    const legacy = (await get(appId, '/recipe/multitenancy/tenant/list')).json.tenants;
    expect(legacy.map((t: any) => t.thirdParty.providers)).toEqual([providers]);
  });

  it('show as fingerprints in the app list (v2 and legacy), and a fingerprint sent back keeps the secret', async () => {
    const appId = await appWithProviders();
    const fingerprinted = [
      {
        ...providers[0],
        clients: [
          { ...providers[0]!.clients[0], clientSecret: credentialFingerprint(WEB_SECRET) },
          { ...providers[0]!.clients[1], clientSecret: credentialFingerprint(CLIENT_SECRET) },
        ],
      },
      {
        ...providers[1],
        clients: [
          {
            clientId: 'a-1',
            additionalConfig: { keyId: 'K1', teamId: 'T1', privateKey: credentialFingerprint(APPLE_KEY) },
          },
        ],
      },
      {
        ...providers[2],
        clients: [
          {
            clientId: 'b-1',
            additionalConfig: { boxyURL: 'https://boxy.example.com', boxyAPIKey: credentialFingerprint(BOXY_KEY) },
          },
        ],
      },
      providers[3],
    ];
    for (const path of ['/recipe/multitenancy/app/list/v2', '/recipe/multitenancy/app/list']) {
      const apps = (await call('GET', path)).json.apps;
      const mine = apps.find((a: any) => a.appId === appId);
      expect(mine.tenants[0].thirdParty.providers, path).toEqual(fingerprinted);
      for (const secret of SECRETS) expect(JSON.stringify(apps).includes(secret)).toBe(false);
    }

    // What the app list showed, written back: every secret kept as stored.
    const path = `/appid-${appId}/public/recipe/multitenancy/config/thirdparty`;
    for (const config of fingerprinted) {
      const put = await call('PUT', path, { body: { config } });
      expect(put.json, put.text).toEqual({ status: 'OK', createdNew: false });
    }
    expect((await get(appId, '/recipe/multitenancy/tenant/v2')).json.thirdParty.providers).toEqual(providers);

    // Any other fingerprint is not a secret.
    const wrong = await call('PUT', path, {
      body: {
        config: {
          thirdPartyId: 'google',
          clients: [{ clientType: 'web', clientId: 'x', clientSecret: 'sha256:0123456789abcdef' }],
        },
      },
    });
    expect([wrong.status, wrong.text]).toEqual([
      400,
      'Invalid third party config: clientSecret is a fingerprint (sha256:…) that does not match the stored value; send the secret itself',
    ]);
    // A fingerprint moved to another client type does not match either.
    const moved = await call('PUT', path, {
      body: {
        config: {
          thirdPartyId: 'google',
          clients: [{ clientType: 'desktop', clientId: 'x', clientSecret: credentialFingerprint(WEB_SECRET) }],
        },
      },
    });
    expect(moved.status).toBe(400);
    expect((await get(appId, '/recipe/multitenancy/tenant/v2')).json.thirdParty.providers).toEqual(providers);
  });

  it('stored in clear before still read, and are sealed on the next write of the tenant', async () => {
    const appId = await createApp({}, ['t1'], 'sealed');
    // The tenant item as this core wrote it before provider secrets were sealed.
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: appPartition(appId), SK: tenantSortKey('t1') },
        UpdateExpression: 'SET thirdPartyProviders = :p',
        ExpressionAttributeValues: { ':p': providers },
      }),
    );
    expect(itemText((await tenantItem(appId, 't1'))!)).toContain(CLIENT_SECRET);
    expect((await get(appId, '/t1/recipe/multitenancy/tenant/v2')).json.thirdParty.providers).toEqual(providers);
    const apps = (await call('GET', '/recipe/multitenancy/app/list/v2')).json.apps;
    const t1 = apps.find((a: any) => a.appId === appId).tenants.find((t: any) => t.tenantId === 't1');
    expect(t1.thirdParty.providers[0].clients[1].clientSecret).toBe(credentialFingerprint(CLIENT_SECRET));

    // Any write of the tenant record: here a change of its first factors.
    const put = await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: 't1', firstFactors: ['emailpassword'] },
    });
    expect(put.status, put.text).toBe(200);
    expectNoClearSecret(await tenantItem(appId, 't1'));
    expect((await get(appId, '/t1/recipe/multitenancy/tenant/v2')).json.thirdParty.providers).toEqual(providers);
  });

  it('a sealed secret moved to another tenant does not open: it is left out and logged without it', async () => {
    const appId = await appWithProviders();
    await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, { body: { tenantId: 't2' } });
    const sealedProviders = (await tenantItem(appId))!.thirdPartyProviders;
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: appPartition(appId), SK: tenantSortKey('t2') },
        UpdateExpression: 'SET thirdPartyProviders = :p',
        ExpressionAttributeValues: { ':p': [sealedProviders[0]] },
      }),
    );
    const before = logs.lines.length;
    const got = await get(appId, '/t2/recipe/multitenancy/tenant/v2');
    expect(got.status).toBe(200);
    expect(got.json.thirdParty.providers).toEqual([
      {
        thirdPartyId: 'google',
        clients: [
          { clientType: 'web', clientId: 'g-web', scope: ['email'] },
          { clientType: 'mobile', clientId: 'g-mobile', forcePKCE: true },
        ],
      },
    ]);
    const warnings = logs.lines
      .slice(before)
      .map((l) => JSON.parse(l))
      .filter((l) => l.level === 'warn');
    expect(warnings.map((w) => [w.message, w.clientType, w.field, w.reason])).toEqual([
      [
        'a third-party provider secret cannot be decrypted; it is left out; set the provider again',
        'web',
        'clientSecret',
        'altered',
      ],
      [
        'a third-party provider secret cannot be decrypted; it is left out; set the provider again',
        'mobile',
        'clientSecret',
        'altered',
      ],
    ]);
  });
});
