import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { LAMBDA_PAYLOAD_BYTES, MAX_STAGING_BODY_BYTES } from '#functions/http/body.js';
import { call, uniqueAppId } from '../helpers/core-client.js';

/**
 * Request bodies: the API key is checked before a byte is decoded, gzip is inflated up to a hard
 * cap (413 beyond it), and only gzip and identity are accepted as encodings (415 otherwise).
 */

const API_KEY = 'bodies-test-key-0123456789';
const MiB = 1024 * 1024;

/** A gzip body of `bytes` spaces: tiny on the wire, `bytes` once inflated. */
const bomb = (bytes: number) => gzipSync(Buffer.alloc(bytes, ' '), { level: 9 });

async function createApp(coreConfig: Record<string, unknown> = {}): Promise<string> {
  const appId = uniqueAppId('bodies');
  const res = await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId, coreConfig } });
  expect(res.status, res.text).toBe(200);
  return appId;
}

const gzipHeaders = (extra: Record<string, string> = {}) => ({ 'content-encoding': 'gzip', ...extra });

describe('request bodies', () => {
  it('checks the API key before decoding: without the key even a body that is not gzip answers 401', async () => {
    const appId = await createApp({ api_keys: API_KEY });
    const path = `/appid-${appId}/bulk-import/users`;
    const garbage = Buffer.from('this is not gzip at all');
    const noKey = await call('POST', path, { rawBody: garbage, headers: gzipHeaders() });
    expect([noKey.status, noKey.text]).toEqual([401, 'Invalid API key']);
    const noKeyBomb = await call('POST', path, { rawBody: bomb(MAX_STAGING_BODY_BYTES + MiB), headers: gzipHeaders() });
    expect([noKeyBomb.status, noKeyBomb.text]).toEqual([401, 'Invalid API key']);
    const withKey = await call('POST', path, { rawBody: garbage, headers: gzipHeaders({ 'api-key': API_KEY }) });
    expect([withKey.status, withKey.text]).toEqual([400, 'Invalid Json Input']);
  });

  it('inflates a staging body up to 64 MiB and answers 413 beyond, with the key and nothing staged', async () => {
    const appId = await createApp({ api_keys: API_KEY });
    const path = `/appid-${appId}/bulk-import/users`;
    const headers = gzipHeaders({ 'api-key': API_KEY });
    const over = await call('POST', path, { rawBody: bomb(MAX_STAGING_BODY_BYTES + 1), headers });
    expect(over.status).toBe(413);
    expect(over.text).toBe('Request body too large: more than 64 MiB once decompressed; send fewer users per request');
    expect(over.contentType).toContain('text/plain');

    // Just under the cap (and far over Lambda's payload limit once inflated): decoded and read.
    const padding = ' '.repeat(MAX_STAGING_BODY_BYTES - 100);
    const under = await call('POST', path, {
      rawBody: gzipSync(`{"users":[{"loginMethods":[]}]}${padding}`),
      headers,
    });
    expect(under.status, under.text).toBe(400);
    expect(under.json.users).toEqual([{ index: 0, errors: ['At least one loginMethod is required.'] }]);
    const count = await call('GET', `/appid-${appId}/bulk-import/users/count`, { headers: { 'api-key': API_KEY } });
    expect(count.json).toEqual({ status: 'OK', count: 0 });
  });

  it('caps every other body, and any body to an app that does not exist, at 6 MiB once decompressed', async () => {
    const appId = await createApp();
    const other = await call('PUT', `/appid-${appId}/recipe/user/metadata`, {
      rawBody: bomb(LAMBDA_PAYLOAD_BYTES + 1),
      headers: gzipHeaders(),
    });
    expect([other.status, other.text]).toEqual([413, 'Request body too large: more than 6 MiB once decompressed']);
    const fits = await call('PUT', `/appid-${appId}/recipe/user/metadata`, {
      rawBody: gzipSync(`{"userId":"u1","metadataUpdate":{"a":1}}${' '.repeat(LAMBDA_PAYLOAD_BYTES - 100)}`),
      headers: gzipHeaders(),
    });
    expect(fits.json).toEqual({ status: 'OK', metadata: { a: 1 } });

    const missing = `/appid-${uniqueAppId('nobody')}/bulk-import/users`;
    const big = await call('POST', missing, { rawBody: bomb(LAMBDA_PAYLOAD_BYTES + 1), headers: gzipHeaders() });
    expect([big.status, big.text]).toEqual([413, 'Request body too large: more than 6 MiB once decompressed']);
    expect(big.contentType).toContain('text/plain');
    const small = await call('POST', missing, { body: { users: [{}] }, gzip: true });
    expect(small.status).toBe(400);
    expect(small.text).toMatch(/^AppId or tenantId not found/);
  });

  it('accepts gzip (also x-gzip, and with identity) and identity; refuses any other encoding with 415', async () => {
    const appId = await createApp();
    const path = `/appid-${appId}/recipe/user/metadata`;
    const json = JSON.stringify({ userId: 'u2', metadataUpdate: { b: 2 } });
    for (const encoding of ['gzip', 'GZIP', 'x-gzip', 'gzip, identity', 'identity, gzip']) {
      const res = await call('PUT', path, { rawBody: gzipSync(json), headers: { 'content-encoding': encoding } });
      expect(res.json, encoding).toEqual({ status: 'OK', metadata: { b: 2 } });
    }
    for (const encoding of ['identity', '']) {
      const res = await call('PUT', path, { rawBody: json, headers: { 'content-encoding': encoding } });
      expect(res.json, encoding).toEqual({ status: 'OK', metadata: { b: 2 } });
    }
    for (const encoding of ['br', 'deflate', 'compress', 'gzip, gzip', 'gzip, br', 'zstd']) {
      const res = await call('PUT', path, { rawBody: gzipSync(json), headers: { 'content-encoding': encoding } });
      expect([res.status, res.text], encoding).toEqual([
        415,
        'Unsupported Content-Encoding: only gzip and identity are accepted',
      ]);
    }
    const truncated = await call('PUT', path, {
      rawBody: gzipSync(json).subarray(0, 12),
      headers: { 'content-encoding': 'gzip' },
    });
    expect([truncated.status, truncated.text]).toEqual([400, 'Invalid Json Input']);
  });
});
