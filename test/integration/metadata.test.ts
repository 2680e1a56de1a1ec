import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDocumentClient } from '#functions/shared/clients.js';
import { metadataMergeWrite } from '#functions/storage/metadata-store.js';
import { baseTable } from '#functions/wiring/tables.js';
import { call, uniqueAppId } from '../helpers/core-client.js';

const appId = uniqueAppId('meta');
const base = `/appid-${appId}`;

beforeAll(async () => {
  const created = await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId } });
  expect(created.status, created.text).toBe(200);
});

const get = (userId: string) => call('GET', `${base}/recipe/user/metadata?userId=${encodeURIComponent(userId)}`);
const put = (userId: string, metadataUpdate: unknown) =>
  call('PUT', `${base}/recipe/user/metadata`, { body: { userId, metadataUpdate } });

describe('user metadata', () => {
  it('is an empty object for an id without metadata', async () => {
    const reply = await get('nobody');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ status: 'OK', metadata: {} });
  });

  it('shallow-merges updates; null deletes a key; nested objects are replaced', async () => {
    const first = await put('ext-1', { a: 1, nested: { x: 1, y: 2 }, list: [1, 2], keep: 'yes' });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toEqual({
      status: 'OK',
      metadata: { a: 1, nested: { x: 1, y: 2 }, list: [1, 2], keep: 'yes' },
    });
    const second = await put('ext-1', { a: null, nested: { z: 3 }, added: false, missing: null });
    expect(second.json).toEqual({
      status: 'OK',
      metadata: { list: [1, 2], keep: 'yes', nested: { z: 3 }, added: false },
    });
    expect((await get('ext-1')).json).toEqual(second.json);
    // Another id and another app are untouched.
    expect((await get('ext-2')).json.metadata).toEqual({});
    expect((await call('GET', '/recipe/user/metadata?userId=ext-1')).json.metadata).toEqual({});
  });

  it('keeps every concurrent update (no lost writes)', async () => {
    const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
    const replies = await Promise.all(keys.map((k) => put('busy', { [k]: k })));
    for (const reply of replies) expect(reply.status, reply.text).toBe(200);
    const stored = (await get('busy')).json.metadata;
    expect(Object.keys(stored).sort()).toEqual(keys);
  });

  it('removes metadata', async () => {
    await put('gone', { a: 1 });
    const removed = await call('POST', `${base}/recipe/user/metadata/remove`, { body: { userId: 'gone' } });
    expect(removed.status).toBe(200);
    expect(removed.json).toEqual({ status: 'OK' });
    expect((await get('gone')).json.metadata).toEqual({});
    const again = await call('POST', `${base}/recipe/user/metadata/remove`, { body: { userId: 'gone' } });
    expect(again.json).toEqual({ status: 'OK' });
  });

  it.each([
    [{ metadataUpdate: {} }, "Field name 'userId' is invalid in JSON input"],
    [{ userId: 'u' }, "Field name 'metadataUpdate' is invalid in JSON input"],
    [{ userId: 'u', metadataUpdate: null }, "Field name 'metadataUpdate' is invalid in JSON input"],
    [{ userId: 'u', metadataUpdate: [1] }, "Field name 'metadataUpdate' is invalid in JSON input"],
    [{ userId: 'u', metadataUpdate: 'x' }, "Field name 'metadataUpdate' is invalid in JSON input"],
    [{ userId: 'u'.repeat(129), metadataUpdate: {} }, "Field name 'userId' is too long. Max length is 128."],
  ])('PUT %j → 400', async (body, message) => {
    const reply = await call('PUT', `${base}/recipe/user/metadata`, { body });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(message);
  });

  it('refuses metadata larger than an item can hold with 400', async () => {
    const reply = await put('big', { blob: 'x'.repeat(360_000) });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe('User metadata is too large. Max size is 350000 bytes.');
  });

  it('answers the core query and body errors', async () => {
    const missing = await call('GET', `${base}/recipe/user/metadata`);
    expect(missing.status).toBe(400);
    expect(missing.text).toBe("Field name 'userId' is missing in GET request");
    const removeMissing = await call('POST', `${base}/recipe/user/metadata/remove`, { body: {} });
    expect(removeMissing.status).toBe(400);
    expect(removeMissing.text).toBe("Field name 'userId' is invalid in JSON input");
    // A read of an id that cannot have metadata finds none.
    expect((await get('u'.repeat(3000))).json).toEqual({ status: 'OK', metadata: {} });
  });

  it('is app specific and needs an existing app', async () => {
    const tenantPath = await call('GET', `${base}/t1/recipe/user/metadata?userId=u`);
    expect([tenantPath.status, tenantPath.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    const unknownApp = await call('PUT', '/appid-no-such-app/recipe/user/metadata', {
      body: { userId: 'u', metadataUpdate: {} },
    });
    expect(unknownApp.status).toBe(400);
    const notFoundText =
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, no-such-app, public)';
    expect(unknownApp.text).toBe(notFoundText);
    const unknownGet = await call('GET', '/appid-no-such-app/recipe/user/metadata?userId=u');
    expect([unknownGet.status, unknownGet.text]).toEqual([400, notFoundText]);
    const unknownRemove = await call('POST', '/appid-no-such-app/recipe/user/metadata/remove', {
      body: { userId: 'u' },
    });
    expect([unknownRemove.status, unknownRemove.text]).toEqual([400, notFoundText]);
  });
});

describe('metadataMergeWrite (import transaction element)', () => {
  it('merges into the current metadata and fails if it changed since the read', async () => {
    await put('imported', { a: 1, b: 2 });
    const write = await metadataMergeWrite(baseTable, appId, 'imported', { b: null, c: 3 });
    const stale = await metadataMergeWrite(baseTable, appId, 'imported', { d: 4 });
    await getDocumentClient().send(new TransactWriteCommand({ TransactItems: [write] }));
    expect((await get('imported')).json.metadata).toEqual({ a: 1, c: 3 });

    await expect(getDocumentClient().send(new TransactWriteCommand({ TransactItems: [stale] }))).rejects.toMatchObject({
      name: 'TransactionCanceledException',
    });
    expect((await get('imported')).json.metadata).toEqual({ a: 1, c: 3 });
  });

  it('creates metadata for a new id, guarded against a concurrent creation', async () => {
    const write = await metadataMergeWrite(baseTable, appId, 'fresh', { x: null, y: 'v' });
    const racing = await metadataMergeWrite(baseTable, appId, 'fresh', { z: 1 });
    await getDocumentClient().send(new TransactWriteCommand({ TransactItems: [write] }));
    expect((await get('fresh')).json.metadata).toEqual({ y: 'v' });
    await expect(getDocumentClient().send(new TransactWriteCommand({ TransactItems: [racing] }))).rejects.toMatchObject(
      {
        name: 'TransactionCanceledException',
      },
    );
  });
});
