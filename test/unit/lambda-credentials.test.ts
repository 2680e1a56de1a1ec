/**
 * The function bundles resolve AWS credentials with lib/bundling/lambda-credentials.ts instead of
 * the SDK's default chain: Lambda's environment credentials, exactly as the chain's first link reads them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import * as standIn from '../../lib/bundling/lambda-credentials.js';

const VARIABLES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CREDENTIAL_EXPIRATION'];
const saved = Object.fromEntries(VARIABLES.map((v) => [v, process.env[v]]));
afterEach(() => {
  for (const v of VARIABLES) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
});

describe('the credentials stand-in of the bundles', () => {
  it('exports what the SDK clients import from @aws-sdk/credential-provider-node', async () => {
    const real = await import('@aws-sdk/credential-provider-node');
    const named = (module: object) => Object.keys(module).filter((k) => k !== 'default' && k !== '__esModule');
    expect(named(standIn).sort()).toEqual(named(real).sort());
  });

  it("returns the execution role's credentials Lambda puts in the environment", async () => {
    process.env.AWS_ACCESS_KEY_ID = 'ASIAEXAMPLE';
    process.env.AWS_SECRET_ACCESS_KEY = 'example-secret';
    process.env.AWS_SESSION_TOKEN = 'example-token';
    delete process.env.AWS_CREDENTIAL_EXPIRATION;
    await expect(standIn.defaultProvider()()).resolves.toMatchObject({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'example-secret',
      sessionToken: 'example-token',
    });
  });

  it('fails with the SDK error when the environment holds none (never searches files or metadata services)', async () => {
    for (const v of VARIABLES) delete process.env[v];
    await expect(standIn.defaultProvider()()).rejects.toThrow('Unable to find environment variable credentials.');
  });

  it('treats credentials with an expiration as refreshable, as the SDK does', () => {
    const soon = { accessKeyId: 'a', secretAccessKey: 'b', expiration: new Date(Date.now() + 60_000) };
    const later = { ...soon, expiration: new Date(Date.now() + 3_600_000) };
    expect(standIn.credentialsWillNeedRefresh(soon)).toBe(true);
    expect(standIn.credentialsWillNeedRefresh({ accessKeyId: 'a', secretAccessKey: 'b' })).toBe(false);
    expect(standIn.credentialsTreatedAsExpired(soon)).toBe(true);
    expect(standIn.credentialsTreatedAsExpired(later)).toBe(false);
  });
});
