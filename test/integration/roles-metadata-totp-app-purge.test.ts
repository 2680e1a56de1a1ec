import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { getDocumentClient } from '#functions/shared/clients.js';
import { totpDevicePut } from '#functions/storage/totp-store.js';
import { baseTable } from '#functions/wiring/tables.js';
import { uniqueAppId } from '../helpers/core-client.js';
import { appItems, call } from './users-support.js';

/** Every item of the app, its own partition (tenants, roles) included. */
const itemsOfApp = (appId: string) => appItems(appId, { ownPartition: true });

it('deleting an app deletes its roles, assignments, metadata and TOTP devices (users or not)', async () => {
  const appId = uniqueAppId('purge');
  const base = `/appid-${appId}`;
  expect((await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId } })).status).toBe(200);
  await call('PUT', `${base}/recipe/multitenancy/tenant/v2`, { body: { tenantId: 't1' } });
  await call('PUT', `${base}/recipe/role`, { body: { role: 'admin', permissions: ['all'] } });
  await call('PUT', `${base}/recipe/role`, { body: { role: 'user' } });
  for (let i = 0; i < 40; i++) {
    const userId = `ext-${i}`;
    await call('PUT', `${base}/public/recipe/user/role`, { body: { userId, role: 'user' } });
    await call('PUT', `${base}/recipe/user/metadata`, { body: { userId, metadataUpdate: { i } } });
  }
  await call('PUT', `${base}/t1/recipe/user/role`, { body: { userId: 'ext-0', role: 'admin' } });
  await getDocumentClient().send(
    new TransactWriteCommand({
      TransactItems: [
        totpDevicePut(baseTable, appId, 'ext-1', { secretKey: 'SECRETSECRET', period: 30, skew: 1 }),
        totpDevicePut(baseTable, appId, 'ext-1', { deviceName: 'x', secretKey: 'SECRETSECRET2', period: 30, skew: 1 }),
      ],
    }),
  );
  const entityTypes = new Set((await itemsOfApp(appId)).map((item) => item.entityType));
  expect([...entityTypes]).toEqual(
    expect.arrayContaining(['ROLE', 'USER_ROLE', 'USER_METADATA', 'TOTP_DEVICE', 'TENANT']),
  );

  // The tenant goes first (the core requires it); its role assignment is left to the app purge.
  const tenantRemoved = await call('POST', `${base}/recipe/multitenancy/tenant/remove`, { body: { tenantId: 't1' } });
  expect(tenantRemoved.status, tenantRemoved.text).toBe(200);
  const removed = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId } });
  expect(removed.status, removed.text).toBe(200);
  expect(removed.json).toMatchObject({ status: 'OK', didExist: true });
  expect(await itemsOfApp(appId)).toEqual([]);
});
