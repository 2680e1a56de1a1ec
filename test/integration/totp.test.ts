import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assignTotpDeviceNames } from '#functions/domain/totp/names.js';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { setLogSink } from '#functions/shared/logger.js';
import { metadataMergeWrite } from '#functions/storage/metadata-store.js';
import { roleExistsCheck, userRolePut } from '#functions/storage/role-store.js';
import { sealTotpSecret, totpDevicePut } from '#functions/storage/totp-store.js';
import { purgeUserData } from '#functions/storage/user-data.js';
import { credentialsEnvelope } from '#functions/wiring/credentials.js';
import { totpStoreOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { call, uniqueAppId } from '../helpers/core-client.js';

const appId = uniqueAppId('totp');
const base = `/appid-${appId}`;
const SECRET_A = 'JBSWY3DPEHPK3PXPSECRETAAAAAAAAAA';
const SECRET_B = 'KRSXG5CTMVRXEZLUSECRETBBBBBBBBBB';

const lines: string[] = [];
let previousSink: ((line: string) => void) | undefined;
let previousLevel: string | undefined;

beforeAll(async () => {
  const created = await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId } });
  expect(created.status, created.text).toBe(200);
});

beforeEach(() => {
  lines.length = 0;
  previousLevel = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'debug';
  previousSink = setLogSink((line) => lines.push(line));
});

afterEach(() => {
  if (previousSink) setLogSink(previousSink);
  if (previousLevel === undefined) delete process.env.LOG_LEVEL;
  else process.env.LOG_LEVEL = previousLevel;
});

const transact = (items: ReturnType<typeof totpDevicePut>[]) =>
  getDocumentClient().send(new TransactWriteCommand({ TransactItems: items }));

describe('GET /recipe/totp/device/list', () => {
  it('lists no devices for an id without any', async () => {
    const reply = await call('GET', `${base}/recipe/totp/device/list?userId=nobody`);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ status: 'OK', devices: [] });
  });

  it('lists devices without their secrets, in responses and logs', async () => {
    const devices = assignTotpDeviceNames([
      { secretKey: SECRET_A, period: 30, skew: 1 },
      { deviceName: 'phone', secretKey: SECRET_B, period: 60, skew: 2 },
    ]);
    await transact(
      devices.map((d: Parameters<typeof totpDevicePut>[3]) => totpDevicePut(baseTable, appId, 'ext-totp', d)),
    );

    const reply = await call('GET', `${base}/recipe/totp/device/list?userId=ext-totp`);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      status: 'OK',
      devices: [
        { name: 'TOTP Device 0', period: 30, skew: 1, verified: true },
        { name: 'phone', period: 60, skew: 2, verified: true },
      ],
    });
    expect(lines.length).toBeGreaterThan(0);
    for (const text of [reply.text, ...lines]) {
      expect(text).not.toContain(SECRET_A);
      expect(text).not.toContain(SECRET_B);
    }
  });

  it('refuses a duplicate device name without revealing the secret', async () => {
    const put = async (secretKey: string) => {
      const device = { deviceName: 'd', secretKey, period: 30, skew: 1 };
      const sealed = await sealTotpSecret(credentialsEnvelope, appId, 'dup', device);
      return totpDevicePut(baseTable, appId, 'dup', device, sealed);
    };
    await transact([await put(SECRET_A)]);
    const error = await transact([await put(SECRET_B)]).catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ name: 'TransactionCanceledException' });
    expect(
      JSON.stringify({
        message: (error as Error).message,
        reasons: (error as { CancellationReasons?: unknown }).CancellationReasons,
      }),
    ).not.toContain(SECRET_B);
    const stored = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: { PK: `APP#${appId}#U#dup`, SK: 'TOTP#d' } }),
    );
    expect(stored.Item?.secretKey).toBeUndefined();
    expect(await totpStoreOf(baseTable).forApp(appId).openTotpDeviceSecret('dup', 'd')).toBe(SECRET_A);
  });

  it('answers the core query errors', async () => {
    const missing = await call('GET', `${base}/recipe/totp/device/list`);
    expect(missing.status).toBe(400);
    expect(missing.text).toBe("Field name 'userId' is missing in GET request");
    const empty = await call('GET', `${base}/recipe/totp/device/list?userId=`);
    expect(empty.status).toBe(400);
    expect(empty.text).toBe('userId cannot be empty');
  });

  it('is app specific and needs an existing app', async () => {
    const tenantPath = await call('GET', `${base}/t1/recipe/totp/device/list?userId=u`);
    expect([tenantPath.status, tenantPath.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    const unknown = await call('GET', '/appid-no-such-app/recipe/totp/device/list?userId=u');
    expect(unknown.status).toBe(400);
    expect(unknown.text).toMatch(/^AppId or tenantId not found => .*\(, no-such-app, public\)$/);
  });
});

describe('user data removal (for user deletion)', () => {
  it('deletes metadata, role assignments and devices of one id, and nothing else', async () => {
    await call('PUT', `${base}/recipe/role`, { body: { role: 'r1' } });
    const userId = 'to-remove';
    await transact([
      roleExistsCheck(baseTable, appId, 'r1'),
      userRolePut(baseTable, appId, userId, 'public', 'r1'),
      totpDevicePut(baseTable, appId, userId, { secretKey: SECRET_A, period: 30, skew: 1 }),
      await metadataMergeWrite(baseTable, appId, userId, { a: 1 }),
    ]);
    // An item of the user itself (owned by the users code) must survive.
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { PK: `APP#${appId}#U#${userId}`, SK: 'USER', entityType: 'TEST' },
      }),
    );
    await call('PUT', `${base}/recipe/user/metadata`, { body: { userId: 'neighbour', metadataUpdate: { n: 1 } } });

    expect((await call('GET', `${base}/recipe/user/metadata?userId=${userId}`)).json.metadata).toEqual({ a: 1 });
    expect((await call('GET', `${base}/public/recipe/user/roles?userId=${userId}`)).json.roles).toEqual(['r1']);
    expect((await call('GET', `${base}/recipe/totp/device/list?userId=${userId}`)).json.devices).toHaveLength(1);
    await purgeUserData(baseTable, appId, userId);

    expect((await call('GET', `${base}/recipe/user/metadata?userId=${userId}`)).json.metadata).toEqual({});
    expect((await call('GET', `${base}/public/recipe/user/roles?userId=${userId}`)).json.roles).toEqual([]);
    expect((await call('GET', `${base}/recipe/totp/device/list?userId=${userId}`)).json.devices).toEqual([]);
    expect((await call('GET', `${base}/public/recipe/role/users?role=r1`)).json.users).toEqual([]);
    const user = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: { PK: `APP#${appId}#U#${userId}`, SK: 'USER' } }),
    );
    expect(user.Item).toBeDefined();
    expect((await call('GET', `${base}/recipe/user/metadata?userId=neighbour`)).json.metadata).toEqual({ n: 1 });
  });

  it('an assignment of a missing role cancels the import transaction', async () => {
    await expect(
      transact([
        roleExistsCheck(baseTable, appId, 'ghost'),
        userRolePut(baseTable, appId, 'someone', 'public', 'ghost'),
      ]),
    ).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect((await call('GET', `${base}/public/recipe/user/roles?userId=someone`)).json.roles).toEqual([]);
  });
});
