/**
 * Signing-key rotation against DynamoDB Local (docs/sessions.md "Signing keys"): with a short
 * interval a new dynamic key signs new tokens, tokens signed with the previous key verify until
 * they expire, and key rings of many execution environments rotating at once create one key.
 */
import { decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionSettings } from '#functions/config/index.js';
import { KeyRing } from '#functions/domain/sessions/key-ring.js';
import { storedSigningKeyItems } from '#functions/storage/sessions/signing-key-store.js';
import { signingKeyStoreOf } from '#functions/wiring/sessions.js';
import { baseTable } from '#functions/wiring/tables.js';
import { call, uniqueAppId } from '../helpers/core-client.js';

const CDI = { 'cdi-version': '5.4' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('dynamic keys rotate at the app’s interval', () => {
  const appId = uniqueAppId('rotate');
  const base = `/appid-${appId}`;
  // 0.001 h = 3.6 s: the overlap is a fifth of it (720 ms).
  beforeAll(async () => {
    const created = await call('PUT', '/recipe/multitenancy/app/v2', {
      body: {
        appId,
        coreConfig: { access_token_dynamic_signing_key_update_interval: 0.001, access_token_validity: 30 },
      },
    });
    expect(created.status, created.text).toBe(200);
  });

  const create = async () => {
    const reply = await call('POST', `${base}/recipe/session`, {
      headers: CDI,
      body: {
        userId: 'u',
        userDataInJWT: {},
        userDataInDatabase: {},
        enableAntiCsrf: false,
        useDynamicSigningKey: true,
      },
    });
    expect(reply.status, reply.text).toBe(200);
    return reply.json.accessToken.token as string;
  };
  const verify = (accessToken: string) =>
    call('POST', `${base}/recipe/session/verify`, {
      headers: CDI,
      body: { accessToken, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: false },
    });
  const jwksKids = async () =>
    ((await call('GET', `${base}/.well-known/jwks.json`)).json.keys as { kid: string }[]).map((k) => k.kid);

  it('signs new tokens with the new key and keeps verifying the old key’s tokens', async () => {
    const first = await create();
    const firstKid = decodeProtectedHeader(first).kid as string;
    expect(firstKid).toMatch(/^d-\d+$/);
    // Past the interval (and its overlap): the next token is signed with a new key.
    await sleep(4_600);
    const second = await create();
    const secondKid = decodeProtectedHeader(second).kid as string;
    expect(secondKid).not.toBe(firstKid);
    expect(Number(secondKid.slice(2))).toBeGreaterThan(Number(firstKid.slice(2)));
    expect(await jwksKids()).toEqual(expect.arrayContaining([firstKid, secondKid]));
    expect((await verify(first)).json.status).toBe('OK');
    expect((await verify(second)).json.status).toBe('OK');
  });
});

describe('concurrent rotations', () => {
  it('create exactly one key per generation, whatever the number of execution environments', async () => {
    const appId = uniqueAppId('race');
    const settings: SessionSettings = {
      accessTokenValidityMs: 60_000,
      refreshTokenValidityMs: 3_600_000,
      accessTokenBlacklisting: false,
      signingKeyDynamic: true,
      dynamicKeyUpdateIntervalMs: 3_600_000,
    };
    // Eight execution environments, each with its own (empty) caches, sign at once.
    const rings = Array.from({ length: 8 }, () => new KeyRing(signingKeyStoreOf(baseTable)));
    const keys = await Promise.all(rings.map((ring) => ring.signingKey(appId, settings, false)));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    const refreshKeys = await Promise.all(rings.map((ring) => ring.refreshKey(appId)));
    expect(new Set(refreshKeys.map((k) => Buffer.from(k).toString('hex'))).size).toBe(1);
    const items = await storedSigningKeyItems(baseTable, appId);
    expect(items.filter((i) => i.kind === 'dynamic')).toHaveLength(1);
    expect(items.filter((i) => i.kind === 'refresh')).toHaveLength(1);

    // 30 s before the key's hour ends (within the 60 s overlap), all of them find the next key due at once.
    const firstCreated = items.find((i) => i.kind === 'dynamic')?.createdAt as number;
    let now = firstCreated + 3_600_000 - 30_000;
    const later = Array.from({ length: 8 }, () => new KeyRing(signingKeyStoreOf(baseTable), { now: () => now }));
    const rotated = await Promise.all(later.map((ring) => ring.signingKey(appId, settings, false)));
    now += 61_000; // past the overlap: the new key signs
    const signing = await Promise.all(later.map((ring) => ring.signingKey(appId, settings, false)));
    const dynamic = (await storedSigningKeyItems(baseTable, appId)).filter((i) => i.kind === 'dynamic');
    expect(dynamic.map((i) => i.generation).sort()).toEqual([1, 2]);
    // During the overlap the previous key still signed; after it, the new one.
    expect(new Set(rotated.map((k) => k.kid))).toEqual(new Set([keys[0]?.kid]));
    expect(new Set(signing.map((k) => k.kid)).size).toBe(1);
    expect(signing[0]?.kid).not.toBe(keys[0]?.kid);
  });
});
