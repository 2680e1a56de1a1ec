import { expect, it } from 'vitest';
import { call, uniqueAppId } from '../helpers/core-client.js';

it('creates an app and lists it', async () => {
  const appId = uniqueAppId();
  const created = await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId } });
  expect(created.status, created.text).toBe(200);
  expect(created.json).toEqual({ status: 'OK', createdNew: true });
  const list = await call('GET', '/recipe/multitenancy/app/list/v2');
  expect(list.status).toBe(200);
  expect(list.json.apps.map((a: any) => a.appId)).toContain(appId);
  const hello = await call('GET', `/appid-${appId}/hello`);
  expect(hello.text).toBe('Hello');
  const version = await call('GET', `/appid-${appId}/apiversion`);
  expect(version.json.versions).toContain('5.4');
});
