/**
 * TOTP devices and codes through the real handlers against DynamoDB Local (docs/totp-and-mfa.md):
 * every route's answers and messages, create → verify device → verify code, the rate limit and its
 * cooldown, concurrent wrong codes, used codes, an imported device, what is stored (no secret in
 * clear) and what goes with a device, a user, a tenant and an app. Codes are computed from the
 * secrets with an independent RFC 6238 implementation (test/fixtures/migrate/second-factors.ts).
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MFA_DISABLED_MESSAGE } from '#functions/domain/totp/service.js';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { setLogSink } from '#functions/shared/logger.js';
import { keyOfSecret, totpCode } from '../fixtures/migrate/second-factors.js';
import { call, uniqueAppId } from '../helpers/core-client.js';
import { appItems } from './users-support.js';

const appId = uniqueAppId('totpmfa');
const base = `/appid-${appId}`;
const offApp = uniqueAppId('totpoff');
const CDI = { 'cdi-version': '5.4' };

const post = (path: string, body: unknown, headers: Record<string, string> = CDI) =>
  call('POST', path, { body, headers });

/** The code of `secret` at `offsetSteps` steps from now (30 s steps unless told). */
const codeOf = (secret: string, offsetSteps = 0, period = 30) =>
  totpCode(keyOfSecret(secret), Date.now() / 1000 + offsetSteps * period, period);

/** A 6-digit code that is none of the codes of `secret` within ±`skew` steps of now. */
function wrongCodeOf(secret: string, skew = 1, period = 30): string {
  const window = new Set(Array.from({ length: 2 * skew + 3 }, (_, i) => codeOf(secret, i - skew - 1, period)));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!window.has(candidate)) return candidate;
  }
}

async function createDevice(userId: string, deviceName?: string, shape = { skew: 1, period: 30 }, app = base) {
  const reply = await post(`${app}/recipe/totp/device`, { userId, ...(deviceName ? { deviceName } : {}), ...shape });
  expect(reply.status, reply.text).toBe(200);
  return reply.json as { status: string; deviceName: string; secret: string };
}

const itemsOfApp = (app: string) => appItems(app, { ownPartition: true });

async function userItems(app: string, userId: string) {
  const out = await getDocumentClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': `APP#${app}#U#${userId}` },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

const lines: string[] = [];
let previousSink: ((line: string) => void) | undefined;

beforeAll(async () => {
  for (const [id, coreConfig] of [
    [appId, { mfa_enabled: true }],
    [offApp, {}],
  ] as const) {
    const created = await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId: id, coreConfig } });
    expect(created.status, created.text).toBe(200);
  }
  for (const [tenantId, coreConfig] of [
    ['quick', { totp_max_attempts: 2, totp_rate_limit_cooldown_sec: 1 }],
    ['busy', { totp_max_attempts: 5 }],
  ] as const) {
    const tenant = await call('PUT', `${base}/recipe/multitenancy/tenant/v2`, { body: { tenantId, coreConfig } });
    expect(tenant.status, tenant.text).toBe(200);
  }
});

beforeEach(() => {
  lines.length = 0;
  previousSink = setLogSink((line) => lines.push(line));
});

afterEach(() => {
  if (previousSink) setLogSink(previousSink);
});

describe('the TOTP routes: input errors, in the reference order and words', () => {
  const cases: [string, string, string, unknown, number, string][] = [
    [
      'POST',
      '/recipe/totp/device',
      'no userId',
      { skew: 1, period: 30 },
      400,
      "Field name 'userId' is invalid in JSON input",
    ],
    [
      'POST',
      '/recipe/totp/device',
      'null deviceName',
      { userId: 'u', deviceName: null, skew: 1, period: 30 },
      400,
      "Field name 'deviceName' is invalid in JSON input",
    ],
    [
      'POST',
      '/recipe/totp/device',
      'no skew',
      { userId: 'u', period: 30 },
      400,
      "Field name 'skew' is invalid in JSON input",
    ],
    [
      'POST',
      '/recipe/totp/device',
      'text period',
      { userId: 'u', skew: 1, period: 'x' },
      400,
      "Field name 'period' is invalid in JSON input",
    ],
    ['POST', '/recipe/totp/device', 'empty userId', { userId: '', skew: -1, period: 0 }, 400, 'userId cannot be empty'],
    [
      'POST',
      '/recipe/totp/device',
      'empty deviceName',
      { userId: 'u', deviceName: '', skew: 1, period: 30 },
      400,
      'deviceName cannot be empty',
    ],
    ['POST', '/recipe/totp/device', 'negative skew', { userId: 'u', skew: -1, period: 30 }, 400, 'skew must be >= 0'],
    ['POST', '/recipe/totp/device', 'zero period', { userId: 'u', skew: 0, period: 0 }, 400, 'period must be > 0'],
    [
      'POST',
      '/recipe/totp/device',
      'skew over the bound',
      { userId: 'u', skew: 101, period: 30 },
      400,
      'skew must be <= 100',
    ],
    [
      'POST',
      '/recipe/totp/device',
      'long name',
      { userId: 'u', deviceName: 'd'.repeat(257), skew: 1, period: 30 },
      400,
      "Field name 'deviceName' is too long. Max length is 256.",
    ],
    [
      'POST',
      '/recipe/totp/device',
      'long user id',
      { userId: 'u'.repeat(129), skew: 1, period: 30 },
      400,
      "Field name 'userId' is too long. Max length is 128.",
    ],
    [
      'PUT',
      '/recipe/totp/device',
      'no newDeviceName',
      { userId: 'u', existingDeviceName: 'a' },
      400,
      "Field name 'newDeviceName' is invalid in JSON input",
    ],
    [
      'PUT',
      '/recipe/totp/device',
      'empty existingDeviceName',
      { userId: 'u', existingDeviceName: '', newDeviceName: 'b' },
      400,
      'existingDeviceName cannot be empty',
    ],
    [
      'PUT',
      '/recipe/totp/device',
      'empty newDeviceName',
      { userId: 'u', existingDeviceName: 'a', newDeviceName: '' },
      400,
      'newDeviceName cannot be empty',
    ],
    [
      'POST',
      '/recipe/totp/device/remove',
      'no deviceName',
      { userId: 'u' },
      400,
      "Field name 'deviceName' is invalid in JSON input",
    ],
    [
      'POST',
      '/recipe/totp/device/remove',
      'empty deviceName',
      { userId: 'u', deviceName: '' },
      400,
      'deviceName cannot be empty',
    ],
    [
      'POST',
      '/public/recipe/totp/device/verify',
      'no totp',
      { userId: 'u', deviceName: 'd' },
      400,
      "Field name 'totp' is invalid in JSON input",
    ],
    [
      'POST',
      '/public/recipe/totp/device/verify',
      'empty userId',
      { userId: '', deviceName: 'd', totp: '1' },
      400,
      'userId cannot be empty',
    ],
    [
      'POST',
      '/public/recipe/totp/verify',
      'numeric totp',
      { userId: 'u', totp: 123456 },
      400,
      "Field name 'totp' is invalid in JSON input",
    ],
    [
      'POST',
      '/public/recipe/totp/verify',
      'empty userId, no totp',
      { userId: '' },
      400,
      "Field name 'totp' is invalid in JSON input",
    ],
    ['POST', '/public/recipe/totp/verify', 'empty userId', { userId: '', totp: '' }, 400, 'userId cannot be empty'],
  ];
  it.each(cases)('%s %s (%s)', async (method, path, _, body, status, text) => {
    const reply = await call(method, `${base}${path}`, { body, headers: CDI });
    expect([reply.status, reply.text]).toEqual([status, text]);
  });

  it('app-specific routes refuse a tenant path; every route validates before looking the app up', async () => {
    const body = { userId: 'u', deviceName: 'd', existingDeviceName: 'd', newDeviceName: 'e', skew: 1, period: 30 };
    for (const [method, path] of [
      ['POST', '/recipe/totp/device'],
      ['PUT', '/recipe/totp/device'],
      ['POST', '/recipe/totp/device/remove'],
    ] as const) {
      const tenantPath = await call(method, `${base}/quick${path}`, { body, headers: CDI });
      expect([tenantPath.status, tenantPath.text]).toEqual([
        403,
        'Only public tenantId can call this app specific API',
      ]);
      const unknownApp = await call(method, `/appid-no-such-app${path}`, { body, headers: CDI });
      expect(unknownApp.status).toBe(400);
      expect(unknownApp.text).toMatch(/^AppId or tenantId not found => .*\(, no-such-app, public\)$/);
      const invalidFirst = await call(method, `/appid-no-such-app${path}`, { body: { userId: '' }, headers: CDI });
      expect(invalidFirst.status).toBe(400);
      expect(invalidFirst.text).not.toMatch(/^AppId/);
    }
    const unknownTenant = await post(`${base}/nope/recipe/totp/verify`, { userId: 'u', totp: '000000' });
    expect(unknownTenant.text).toMatch(/^AppId or tenantId not found => .*\(, totpmfa-[a-z0-9]+, nope\)$/);
  });
});

describe('mfa_enabled', () => {
  it('off: creating a device and verifying a code answer the reference 402; the other routes answer as usual', async () => {
    const off = `/appid-${offApp}`;
    const created = await post(`${off}/recipe/totp/device`, { userId: 'u', skew: 1, period: 30 });
    expect([created.status, created.text]).toEqual([402, MFA_DISABLED_MESSAGE]);
    expect(MFA_DISABLED_MESSAGE).toBe(
      'MFA feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.',
    );
    const verified = await post(`${off}/public/recipe/totp/verify`, { userId: 'u', totp: '123456' });
    expect([verified.status, verified.text]).toEqual([402, MFA_DISABLED_MESSAGE]);
    const device = await post(`${off}/public/recipe/totp/device/verify`, { userId: 'u', deviceName: 'd', totp: '1' });
    expect(device.json).toEqual({ status: 'UNKNOWN_DEVICE_ERROR' });
    expect((await post(`${off}/recipe/totp/device/remove`, { userId: 'u', deviceName: 'd' })).json).toEqual({
      status: 'OK',
      didDeviceExist: false,
    });
    expect((await itemsOfApp(offApp)).filter((i) => String(i.SK).startsWith('TOTP'))).toEqual([]);
  });
});

describe('create → verify device → verify code', () => {
  it('hands the secret out once, verifies the device with its code, then accepts each code once', async () => {
    const userId = 'flow-user';
    const created = await createDevice(userId, 'phone');
    expect(created).toEqual({ status: 'OK', deviceName: 'phone', secret: expect.stringMatching(/^[A-Z2-7]{32}$/) });
    const { secret } = created;

    const listed = await call('GET', `${base}/recipe/totp/device/list?userId=${userId}`);
    expect(listed.json).toEqual({ status: 'OK', devices: [{ name: 'phone', period: 30, skew: 1, verified: false }] });
    expect(listed.text).not.toContain(secret);

    // An unverified device verifies no code yet.
    const early = await post(`${base}/public/recipe/totp/verify`, { userId, totp: codeOf(secret) });
    expect(early.json).toEqual({
      status: 'INVALID_TOTP_ERROR',
      currentNumberOfFailedAttempts: 1,
      maxNumberOfFailedAttempts: 5,
    });

    const wrong = await post(`${base}/public/recipe/totp/device/verify`, {
      userId,
      deviceName: 'phone',
      totp: wrongCodeOf(secret),
    });
    expect(wrong.json).toEqual({
      status: 'INVALID_TOTP_ERROR',
      currentNumberOfFailedAttempts: 2,
      maxNumberOfFailedAttempts: 5,
    });
    const first = codeOf(secret);
    const right = await post(`${base}/public/recipe/totp/device/verify`, { userId, deviceName: 'phone', totp: first });
    expect(right.json).toEqual({ status: 'OK', wasAlreadyVerified: false });
    const again = await post(`${base}/public/recipe/totp/device/verify`, {
      userId,
      deviceName: 'phone',
      totp: 'anything',
    });
    expect(again.json).toEqual({ status: 'OK', wasAlreadyVerified: true });
    const unknown = await post(`${base}/public/recipe/totp/device/verify`, { userId, deviceName: 'tablet', totp: '1' });
    expect(unknown.json).toEqual({ status: 'UNKNOWN_DEVICE_ERROR' });

    // The next step's code (within the skew) is accepted once; the same code again is a failure.
    const next = codeOf(secret, 1);
    expect((await post(`${base}/public/recipe/totp/verify`, { userId, totp: next })).json).toEqual({ status: 'OK' });
    const replay = await post(`${base}/public/recipe/totp/verify`, { userId, totp: next });
    expect(replay.json).toEqual({
      status: 'INVALID_TOTP_ERROR',
      currentNumberOfFailedAttempts: 1,
      maxNumberOfFailedAttempts: 5,
    });
    // The device's code of the verification was used too.
    const used = await post(`${base}/public/recipe/totp/verify`, { userId, totp: first });
    expect(used.json.status).toBe('INVALID_TOTP_ERROR');
    // Codes outside the window and longer than 8 characters are wrong as well.
    expect((await post(`${base}/public/recipe/totp/verify`, { userId, totp: codeOf(secret, 3) })).json.status).toBe(
      'INVALID_TOTP_ERROR',
    );
    expect(
      (await post(`${base}/public/recipe/totp/verify`, { userId, totp: '123456789' })).json
        .currentNumberOfFailedAttempts,
    ).toBe(4);
    // Before CDI 5.0 the answers carry no counts.
    const old = await post(`${base}/public/recipe/totp/verify`, { userId, totp: '12' }, { 'cdi-version': '4.0' });
    expect(old.json).toEqual({ status: 'INVALID_TOTP_ERROR' });

    const noDevice = await post(`${base}/public/recipe/totp/verify`, { userId: 'nobody', totp: '123456' });
    expect(noDevice.json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    const longId = await post(`${base}/public/recipe/totp/verify`, { userId: 'x'.repeat(500), totp: '123456' });
    expect(longId.json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });

    for (const line of lines) expect(line).not.toContain(secret);
  });

  it('names nameless devices as the reference does; a verified name cannot be taken again', async () => {
    const userId = 'names-user';
    const first = await createDevice(userId);
    expect(first.deviceName).toBe('TOTP Device 0');
    // An unverified device of the name is replaced (a new secret).
    const second = await createDevice(userId);
    expect(second.deviceName).toBe('TOTP Device 0');
    expect(second.secret).not.toBe(first.secret);
    const stale = await post(`${base}/public/recipe/totp/device/verify`, {
      userId,
      deviceName: 'TOTP Device 0',
      totp: codeOf(first.secret),
    });
    expect(stale.json.status).toBe('INVALID_TOTP_ERROR');
    const ok = await post(`${base}/public/recipe/totp/device/verify`, {
      userId,
      deviceName: 'TOTP Device 0',
      totp: codeOf(second.secret),
    });
    expect(ok.json).toEqual({ status: 'OK', wasAlreadyVerified: false });
    expect((await createDevice(userId)).deviceName).toBe('TOTP Device 1');
    expect(await createDevice(userId, 'TOTP Device 0')).toEqual({ status: 'DEVICE_ALREADY_EXISTS_ERROR' });
  });
});

describe('rate limiting', () => {
  it('refuses after totp_max_attempts wrong codes with retryAfterMs, even a right code, until the cooldown ends', async () => {
    const userId = 'limited-user';
    const { secret } = await createDevice(userId, 'd');
    const verify = await post(`${base}/quick/recipe/totp/device/verify`, {
      userId,
      deviceName: 'd',
      totp: codeOf(secret),
    });
    expect(verify.json).toEqual({ status: 'OK', wasAlreadyVerified: false });

    const wrong = wrongCodeOf(secret);
    const answers: any[] = [];
    for (let i = 0; i < 3; i++)
      answers.push((await post(`${base}/quick/recipe/totp/verify`, { userId, totp: wrong })).json);
    expect(answers.slice(0, 2)).toEqual([
      { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: 1, maxNumberOfFailedAttempts: 2 },
      { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: 2, maxNumberOfFailedAttempts: 2 },
    ]);
    expect(answers[2]).toMatchObject({
      status: 'LIMIT_REACHED_ERROR',
      currentNumberOfFailedAttempts: 2,
      maxNumberOfFailedAttempts: 2,
    });
    expect(answers[2].retryAfterMs).toBeGreaterThan(0);
    expect(answers[2].retryAfterMs).toBeLessThanOrEqual(1000);
    // A right code changes nothing while limited (and is not used up).
    const fresh = codeOf(secret);
    const during = await post(`${base}/quick/recipe/totp/verify`, { userId, totp: fresh }, { 'cdi-version': '4.0' });
    expect(Object.keys(during.json).sort()).toEqual(['retryAfterMs', 'status']);
    // The attempts are the user's in every tenant of the app (the reference counts per tenant):
    // the two failures made in 'quick' count in 'public', under public's own limit (5).
    expect((await post(`${base}/public/recipe/totp/verify`, { userId, totp: wrong })).json).toEqual({
      status: 'INVALID_TOTP_ERROR',
      currentNumberOfFailedAttempts: 3,
      maxNumberOfFailedAttempts: 5,
    });

    // Past quick's cooldown after the newest failure (public's): its count starts again.
    await new Promise((r) => setTimeout(r, 1100));
    // The next step's code: the current one may be the code the device was verified with (used).
    const after = await post(`${base}/quick/recipe/totp/verify`, { userId, totp: codeOf(secret, 1) });
    expect(after.json).toEqual({ status: 'OK' });
  });

  it('counts concurrent wrong codes one after another: never more than totp_max_attempts', async () => {
    const userId = 'racing-user';
    const { secret } = await createDevice(userId, 'd');
    await post(`${base}/busy/recipe/totp/device/verify`, { userId, deviceName: 'd', totp: codeOf(secret) });
    const wrong = wrongCodeOf(secret);
    const replies = await Promise.all(
      Array.from({ length: 12 }, () => post(`${base}/busy/recipe/totp/verify`, { userId, totp: wrong })),
    );
    for (const reply of replies) expect(reply.status, reply.text).toBe(200);
    const invalid = replies.filter((r) => r.json.status === 'INVALID_TOTP_ERROR');
    const limited = replies.filter((r) => r.json.status === 'LIMIT_REACHED_ERROR');
    expect(invalid.map((r) => r.json.currentNumberOfFailedAttempts).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(limited).toHaveLength(7);
    const record = (await userItems(appId, userId)).find((i) => i.SK === 'TOTPATTEMPTS#');
    expect(record?.failedAt).toHaveLength(5);
  });

  it('accepts a right code once when it is sent twice at the same time', async () => {
    const userId = 'double-user';
    const { secret } = await createDevice(userId, 'd');
    await post(`${base}/public/recipe/totp/device/verify`, { userId, deviceName: 'd', totp: codeOf(secret) });
    const code = codeOf(secret, 1);
    const replies = await Promise.all(
      [0, 1, 2].map(() => post(`${base}/public/recipe/totp/verify`, { userId, totp: code })),
    );
    expect(replies.map((r) => r.json.status).sort()).toEqual(['INVALID_TOTP_ERROR', 'INVALID_TOTP_ERROR', 'OK']);
  });

  it('a code used in one tenant is refused in every other, and a lock-out in one holds in all', async () => {
    const userId = 'tenants-user';
    const { secret } = await createDevice(userId, 'd');
    await post(`${base}/public/recipe/totp/device/verify`, { userId, deviceName: 'd', totp: codeOf(secret) });
    const code = codeOf(secret, 1);
    expect((await post(`${base}/busy/recipe/totp/verify`, { userId, totp: code })).json).toEqual({ status: 'OK' });
    for (const tenantId of ['public', 'quick']) {
      expect(
        (await post(`${base}/${tenantId}/recipe/totp/verify`, { userId, totp: code })).json,
        tenantId,
      ).toMatchObject({
        status: 'INVALID_TOTP_ERROR',
      });
    }
    // Two failures so far (the replays); three more in 'busy' reach its limit of 5 …
    const wrong = wrongCodeOf(secret);
    for (let i = 0; i < 3; i++) await post(`${base}/busy/recipe/totp/verify`, { userId, totp: wrong });
    // … and the user is locked out in 'public' too (also limit 5), even with a right code.
    const locked = await post(`${base}/public/recipe/totp/verify`, { userId, totp: codeOf(secret, -1) });
    expect(locked.json).toMatchObject({ status: 'LIMIT_REACHED_ERROR', currentNumberOfFailedAttempts: 5 });
    expect((await userItems(appId, userId)).map((i) => i.SK).sort()).toEqual(['TOTP#d', 'TOTPATTEMPTS#']);
  });
});

describe('imported devices and what is stored', () => {
  it('an imported device verifies codes of its secret; no item holds a secret in clear; rename keeps it working', async () => {
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const imported = await post(`${base}/bulk-import/import`, {
      externalUserId: 'imported-totp',
      totpDevices: [{ secretKey: secret, period: 30, skew: 1, deviceName: 'authenticator' }],
      loginMethods: [
        { recipeId: 'emailpassword', email: 'imported.totp@example.com', plainTextPassword: 'pw-imported-1' },
      ],
    });
    expect(imported.status, imported.text).toBe(200);
    const userId = 'imported-totp';
    expect((await post(`${base}/public/recipe/totp/verify`, { userId, totp: codeOf(secret) })).json).toEqual({
      status: 'OK',
    });

    const created = await createDevice(userId, 'second');
    for (const item of await userItems(appId, userId)) {
      const text = JSON.stringify(item, (_, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
      for (const s of [secret, created.secret, secret.toLowerCase()]) expect(text).not.toContain(s);
      expect(item.secretKey).toBeUndefined();
    }

    const renamed = await call('PUT', `${base}/recipe/totp/device`, {
      body: { userId, existingDeviceName: 'authenticator', newDeviceName: 'old phone' },
      headers: CDI,
    });
    expect(renamed.json).toEqual({ status: 'OK' });
    expect((await post(`${base}/public/recipe/totp/verify`, { userId, totp: codeOf(secret, 1) })).json).toEqual({
      status: 'OK',
    });
    const rename = (existingDeviceName: string, newDeviceName: string) =>
      call('PUT', `${base}/recipe/totp/device`, { body: { userId, existingDeviceName, newDeviceName }, headers: CDI });
    expect((await rename('old phone', 'second')).json).toEqual({ status: 'DEVICE_ALREADY_EXISTS_ERROR' });
    expect((await rename('gone', 'x')).json).toEqual({ status: 'UNKNOWN_DEVICE_ERROR' });
    expect((await rename('old phone', 'old phone')).json).toEqual({ status: 'OK' });
    const listed = await call('GET', `${base}/recipe/totp/device/list?userId=${userId}`);
    expect(listed.json.devices.map((d: { name: string }) => d.name)).toEqual(['old phone', 'second']);
    for (const line of lines) for (const s of [secret, created.secret]) expect(line).not.toContain(s);
  });
});

describe('removal', () => {
  it('removing the last device forgets the attempts; removing the user removes devices and attempts', async () => {
    const userId = 'removed-devices';
    const { secret } = await createDevice(userId, 'a');
    await createDevice(userId, 'b');
    await post(`${base}/busy/recipe/totp/device/verify`, { userId, deviceName: 'a', totp: wrongCodeOf(secret) });
    const remove = (deviceName: string) => post(`${base}/recipe/totp/device/remove`, { userId, deviceName });
    expect((await remove('a')).json).toEqual({ status: 'OK', didDeviceExist: true });
    expect((await remove('a')).json).toEqual({ status: 'OK', didDeviceExist: false });
    expect((await userItems(appId, userId)).map((i) => i.SK).sort()).toEqual(['TOTP#b', 'TOTPATTEMPTS#']);
    expect((await remove('b')).json).toEqual({ status: 'OK', didDeviceExist: true });
    expect(await userItems(appId, userId)).toEqual([]);

    const signedUp = await post(`${base}/public/recipe/signup`, {
      email: 'totp.removed@example.com',
      password: 'pw-1234-x',
    });
    const id = signedUp.json.user.id as string;
    const device = await createDevice(id, 'phone');
    await post(`${base}/public/recipe/totp/verify`, { userId: id, totp: wrongCodeOf(device.secret) });
    await post(`${base}/quick/recipe/totp/verify`, { userId: id, totp: wrongCodeOf(device.secret) });
    expect((await userItems(appId, id)).filter((i) => String(i.SK).startsWith('TOTP')).length).toBe(2);
    expect((await post(`${base}/user/remove`, { userId: id })).json).toEqual({ status: 'OK' });
    expect((await userItems(appId, id)).filter((i) => String(i.SK).startsWith('TOTP'))).toEqual([]);
  });

  it("removing a tenant leaves the users' attempts (they are the user's in the app) and removes records kept per tenant before; removing the app removes everything", async () => {
    const app = uniqueAppId('totpgone');
    const prefix = `/appid-${app}`;
    await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId: app, coreConfig: { mfa_enabled: true } } });
    await call('PUT', `${prefix}/recipe/multitenancy/tenant/v2`, { body: { tenantId: 't1' } });
    await call('PUT', `${prefix}/recipe/multitenancy/tenant/v2`, { body: { tenantId: 't10' } });
    const { secret } = await createDevice('u1', 'd', undefined, prefix);
    for (const t of ['public', 't1', 't10'])
      await post(`${prefix}/${t}/recipe/totp/verify`, { userId: 'u1', totp: wrongCodeOf(secret) });
    const attempts = async () => (await itemsOfApp(app)).filter((i) => String(i.SK).startsWith('TOTPATTEMPTS#'));
    expect((await attempts()).map((i) => [i.SK, (i.failedAt as number[]).length])).toEqual([['TOTPATTEMPTS#', 3]]);
    // A record an earlier version kept for tenant t1 (`TOTPATTEMPTS#<tenantId>`) goes with t1.
    const legacy = { PK: `APP#${app}#U#u1`, SK: 'TOTPATTEMPTS#t1' };
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...legacy,
          entityType: 'TOTP_ATTEMPTS',
          GSI3PK: (await attempts())[0]?.GSI3PK,
          GSI3SK: legacy.SK,
          userId: 'u1',
          tenantId: 't1',
          failedAt: [Date.now()],
          usedCodes: [],
          version: 1,
        },
      }),
    );
    expect((await attempts()).map((i) => i.SK).sort()).toEqual(['TOTPATTEMPTS#', 'TOTPATTEMPTS#t1']);
    await call('POST', `${prefix}/recipe/multitenancy/tenant/remove`, { body: { tenantId: 't1' } });
    expect((await attempts()).map((i) => i.SK)).toEqual(['TOTPATTEMPTS#']);
    await call('POST', `${prefix}/recipe/multitenancy/tenant/remove`, { body: { tenantId: 't10' } });
    expect((await attempts()).map((i) => i.SK)).toEqual(['TOTPATTEMPTS#']);
    const removed = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId: app } });
    expect(removed.json).toMatchObject({ status: 'OK', didExist: true });
    expect(await itemsOfApp(app)).toEqual([]);
  });
});

describe('hostile input', () => {
  it('no body or query gets a 5xx (fast-check)', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 10 }),
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom('', 'd', '000000', '1'.repeat(9), 'x'.repeat(2000), '2147483648', '-0', ' 30', 1e300, 2 ** 31),
      fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
      fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
    );
    const body = fc.record(
      {
        userId: fc.oneof(value, fc.constantFrom('fuzz-user', 'flow-user')),
        deviceName: value,
        existingDeviceName: value,
        newDeviceName: value,
        skew: value,
        period: value,
        totp: value,
      },
      { requiredKeys: [] },
    );
    const target = fc.constantFrom(
      ['POST', '/recipe/totp/device'],
      ['PUT', '/recipe/totp/device'],
      ['POST', '/recipe/totp/device/remove'],
      ['POST', '/public/recipe/totp/device/verify'],
      ['POST', '/busy/recipe/totp/verify'],
    );
    await fc.assert(
      fc.asyncProperty(target, body, async ([method, path], input) => {
        const reply = await call(method, `${base}${path}`, { body: input, headers: CDI });
        expect(reply.status, `${method} ${path} ${reply.text}`).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (userId) => {
        const reply = await call('GET', `${base}/recipe/totp/device/list?userId=${encodeURIComponent(userId)}`);
        expect(reply.status).toBeLessThan(500);
      }),
      { numRuns: 50 },
    );
  });
});
