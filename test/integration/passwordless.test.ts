/**
 * Passwordless sign-in-up through the real handlers against DynamoDB Local: every route's answers
 * and messages, the attempt limit and the code lifetime of the tenant, link codes, resends,
 * concurrent consumes, imported email and SMS users, what is stored (hashes only), and what goes
 * with a user, a tenant and an app.
 */
import { createHash, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { updatePasswordlessUser } from '#functions/domain/passwordless/user-update.js';
import { storesOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { appItems, call, captureLogs, createApp, expectNoSecrets, importUser } from './users-support.js';

const logs = captureLogs();
/** Every code, link code and device id a test saw: none may reach a log line. */
const secrets: string[] = [];
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, secrets);
});

const path = (appId: string, rest: string, tenantId = 'public') => `/appid-${appId}/${tenantId}/recipe/signinup${rest}`;

interface Created {
  preAuthSessionId: string;
  codeId: string;
  deviceId: string;
  userInputCode: string;
  linkCode: string;
  timeCreated: number;
  codeLifetime: number;
}

async function createCode(appId: string, body: Record<string, unknown>, tenantId = 'public'): Promise<Created> {
  const reply = await call('POST', path(appId, '/code', tenantId), { body });
  expect(reply.status, reply.text).toBe(200);
  expect(reply.json.status, reply.text).toBe('OK');
  secrets.push(reply.json.userInputCode, reply.json.linkCode, reply.json.deviceId);
  return reply.json as Created;
}

const consume = (appId: string, body: Record<string, unknown>, tenantId = 'public') =>
  call('POST', path(appId, '/code/consume', tenantId), { body });

const withCode = (c: Created, userInputCode = c.userInputCode) => ({
  preAuthSessionId: c.preAuthSessionId,
  deviceId: c.deviceId,
  userInputCode,
});

const listBy = async (appId: string, query: string, tenantId = 'public') => {
  const reply = await call('GET', `${path(appId, '/codes', tenantId)}?${query}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.json.devices as any[];
};

const userCount = async (appId: string) =>
  (await call('GET', `/appid-${appId}/users/count?includeAllTenants=true`)).json.count as number;

const wrongCode = (c: Created) => (c.userInputCode === '000000' ? '111111' : '000000');

/** A new app with a tenant `tenantId` of its own `coreConfig` (the passwordless settings under test). */
async function appWithTenant(tenantId: string, coreConfig: Record<string, unknown>): Promise<string> {
  const appId = await createApp({}, [], 'pl');
  const tenant = await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, { body: { tenantId, coreConfig } });
  expect(tenant.status, tenant.text).toBe(200);
  return appId;
}

describe('creating codes', () => {
  it('creates a device and its first code for an email, as the reference answers it', async () => {
    const appId = await createApp({}, [], 'pl');
    const before = Date.now();
    const created = await createCode(appId, { email: '  Pat@Example.COM ', shouldTryLinkingWithSessionUser: false });
    expect(Object.keys(created).sort()).toEqual(
      [
        'codeId',
        'codeLifetime',
        'deviceId',
        'linkCode',
        'preAuthSessionId',
        'status',
        'timeCreated',
        'userInputCode',
      ].sort(),
    );
    expect(created.userInputCode).toMatch(/^\d{6}$/);
    expect(created.codeId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(created.deviceId).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(created.linkCode).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The preAuthSessionId is the device id's SHA-256, URL-safe and unpadded.
    const hash = createHash('sha256').update(Buffer.from(created.deviceId, 'base64')).digest('base64url');
    expect(created.preAuthSessionId).toBe(hash);
    expect(created.codeLifetime).toBe(900_000);
    expect(created.timeCreated).toBeGreaterThanOrEqual(before);
    expect(created.timeCreated).toBeLessThanOrEqual(Date.now());

    const devices = await listBy(appId, `email=${encodeURIComponent('PAT@example.com')}`);
    expect(devices).toEqual([
      {
        preAuthSessionId: created.preAuthSessionId,
        failedCodeInputAttemptCount: 0,
        email: 'pat@example.com',
        codes: [{ codeId: created.codeId, timeCreated: created.timeCreated, codeLifetime: 900_000 }],
      },
    ]);
  });

  it('normalises phone numbers as the rest of the core does, and takes a code of the caller’s choosing', async () => {
    const appId = await createApp({}, [], 'pl');
    const created = await createCode(appId, { phoneNumber: ' +1 (650) 555-0100 ', userInputCode: 'my-own-code' });
    expect(created.userInputCode).toBe('my-own-code');
    const devices = await listBy(appId, `phoneNumber=${encodeURIComponent('+16505550100')}`);
    expect(devices.map((d) => d.phoneNumber)).toEqual(['+16505550100']);
    expect(devices[0].email).toBeUndefined();
    expect(await listBy(appId, `phoneNumber=${encodeURIComponent('+1 650-555-0100')}`)).toHaveLength(1);
  });

  it('resends with the deviceId: a new code for the same device, both codes valid', async () => {
    const appId = await createApp({}, [], 'pl');
    const first = await createCode(appId, { email: 'resend@example.com' });
    const second = await createCode(appId, { deviceId: first.deviceId });
    expect(second.preAuthSessionId).toBe(first.preAuthSessionId);
    expect(second.deviceId).toBe(first.deviceId);
    expect(second.codeId).not.toBe(first.codeId);
    const [device] = await listBy(appId, `preAuthSessionId=${first.preAuthSessionId}`);
    expect(device.codes.map((c: { codeId: string }) => c.codeId).sort()).toEqual([first.codeId, second.codeId].sort());
    expect((await listBy(appId, `deviceId=${encodeURIComponent(first.deviceId)}`))[0].preAuthSessionId).toBe(
      first.preAuthSessionId,
    );

    // A code the device already has, given again: refused; a new one of the caller's choosing: fine.
    const again = await call('POST', path(appId, '/code'), {
      body: { deviceId: first.deviceId, userInputCode: first.userInputCode },
    });
    expect(again.json).toEqual({ status: 'USER_INPUT_CODE_ALREADY_USED_ERROR' });
    const chosen = await createCode(appId, { deviceId: first.deviceId, userInputCode: '424242' });
    expect(chosen.userInputCode).toBe('424242');

    // The older code still signs in (and consumes the whole device).
    const consumed = await consume(appId, withCode(first));
    expect(consumed.json.status, consumed.text).toBe('OK');
    expect((await consume(appId, withCode(second))).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('answers RESTART_FLOW_ERROR for the deviceId of a device that is gone', async () => {
    const appId = await createApp({}, [], 'pl');
    const unknown = Buffer.alloc(32, 7).toString('base64');
    expect((await call('POST', path(appId, '/code'), { body: { deviceId: unknown } })).json).toEqual({
      status: 'RESTART_FLOW_ERROR',
    });
  });

  it('refuses bad input with the reference messages', async () => {
    const appId = await createApp({}, [], 'pl');
    const cases: [unknown, string][] = [
      [{}, 'Please provide exactly one of email, phoneNumber or deviceId'],
      [{ email: 'a@b.c', phoneNumber: '+15555550100' }, 'Please provide exactly one of email, phoneNumber or deviceId'],
      [{ email: 'a@b.c', deviceId: 'AAAA' }, 'Please provide exactly one of email, phoneNumber or deviceId'],
      [{ email: 5 }, "Field name 'email' is invalid in JSON input"],
      [{ email: null }, "Field name 'email' is invalid in JSON input"],
      [{ phoneNumber: true }, "Field name 'phoneNumber' is invalid in JSON input"],
      [{ deviceId: {} }, "Field name 'deviceId' is invalid in JSON input"],
      [{ email: 'a@b.c', userInputCode: '' }, 'userInputCode cannot be an empty string.'],
      [{ email: 'a@b.c', userInputCode: 7 }, "Field name 'userInputCode' is invalid in JSON input"],
      [{ deviceId: 'not base64!' }, 'Input encoding error in deviceId'],
      [{ deviceId: 'abc_-' }, 'Input encoding error in deviceId'],
      [{ email: `${'e'.repeat(250)}@b.com` }, "Field name 'email' is too long. Max length is 255."],
    ];
    for (const [body, message] of cases) {
      const reply = await call('POST', path(appId, '/code'), { body });
      expect(`${reply.status} ${reply.text}`, JSON.stringify(body)).toBe(`400 ${message}`);
    }
    // The input is read before the tenant is looked up, as in the reference.
    const badInput = await call('POST', path(appId, '/code', 'nope'), { body: {} });
    expect(badInput.text).toBe('Please provide exactly one of email, phoneNumber or deviceId');
    const unknownTenant = await call('POST', path(appId, '/code', 'nope'), { body: { email: 'a@b.c' } });
    expect(`${unknownTenant.status} ${unknownTenant.text}`).toBe(
      `400 AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, ${appId}, nope)`,
    );
  });

  it('refuses passwordless where the tenant disallows it, before CDI 5.1 only', async () => {
    const appId = await createApp({}, [], 'pl');
    const tenant = await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: 'pw-off', firstFactors: ['emailpassword'] },
    });
    expect(tenant.status, tenant.text).toBe(200);
    const old = await call('POST', path(appId, '/code', 'pw-off'), {
      body: { email: 'a@b.c' },
      headers: { 'cdi-version': '4.0' },
    });
    expect(`${old.status} ${old.text}`).toBe('403 Passwordless login not enabled for tenant');
    const current = await call('POST', path(appId, '/code', 'pw-off'), {
      body: { email: 'a@b.c' },
      headers: { 'cdi-version': '5.4' },
    });
    expect(current.json.status, current.text).toBe('OK');
  });
});

describe('consuming codes', () => {
  it('signs up a new user with the user input code, then signs the same user in', async () => {
    const appId = await createApp({}, [], 'pl');
    const created = await createCode(appId, { email: 'New.User@Example.com' });
    const signedUp = await consume(appId, { ...withCode(created), shouldTryLinkingWithSessionUser: false });
    expect(signedUp.status, signedUp.text).toBe(200);
    const user = signedUp.json.user;
    expect(signedUp.json).toEqual({
      status: 'OK',
      createdNewUser: true,
      user: {
        id: user.id,
        isPrimaryUser: false,
        tenantIds: ['public'],
        timeJoined: user.timeJoined,
        emails: ['new.user@example.com'],
        phoneNumbers: [],
        thirdParty: [],
        webauthn: { credentialIds: [] },
        loginMethods: [
          {
            recipeId: 'passwordless',
            recipeUserId: user.id,
            tenantIds: ['public'],
            email: 'new.user@example.com',
            verified: true,
            timeJoined: user.timeJoined,
          },
        ],
      },
      recipeUserId: user.id,
      consumedDevice: {
        preAuthSessionId: created.preAuthSessionId,
        failedCodeInputAttemptCount: 0,
        email: 'new.user@example.com',
      },
    });
    // Consumed: the device is gone.
    expect(await listBy(appId, `preAuthSessionId=${created.preAuthSessionId}`)).toEqual([]);
    expect((await consume(appId, withCode(created))).json).toEqual({ status: 'RESTART_FLOW_ERROR' });

    const again = await createCode(appId, { email: 'new.user@example.com' });
    const signedIn = await consume(appId, withCode(again));
    expect(signedIn.json).toMatchObject({ status: 'OK', createdNewUser: false, recipeUserId: user.id });
    expect(signedIn.json.user).toEqual(user);
    expect(await userCount(appId)).toBe(1);
    const byId = await call('GET', `/appid-${appId}/user/id?userId=${user.id}`);
    expect(byId.json.user).toEqual(user);
  });

  it('signs up a phone number, verified as a phone-only login method always is, and consumes a magic link', async () => {
    const appId = await createApp({}, [], 'pl');
    const created = await createCode(appId, { phoneNumber: '+44 20 7946 0000' });
    const reply = await consume(appId, { preAuthSessionId: created.preAuthSessionId, linkCode: created.linkCode });
    expect(reply.json).toMatchObject({
      status: 'OK',
      createdNewUser: true,
      consumedDevice: {
        preAuthSessionId: created.preAuthSessionId,
        failedCodeInputAttemptCount: 0,
        phoneNumber: '+442079460000',
      },
    });
    expect(reply.json.user.phoneNumbers).toEqual(['+442079460000']);
    // The reference shows a passwordless login method without an email as verified.
    expect(reply.json.user.loginMethods[0]).toMatchObject({ phoneNumber: '+442079460000', verified: true });
    const read = await call('GET', `/appid-${appId}/user/id?userId=${reply.json.user.id}`);
    expect(read.json.user.loginMethods[0].verified).toBe(true);
    // A link works once.
    const twice = await consume(appId, { preAuthSessionId: created.preAuthSessionId, linkCode: created.linkCode });
    expect(twice.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('counts wrong codes up to the tenant’s limit, then the device is gone', async () => {
    const appId = await appWithTenant('strict', { passwordless_max_code_input_attempts: 3 });
    const created = await createCode(appId, { email: 'tries@example.com' }, 'strict');
    const wrong = withCode(created, wrongCode(created));
    expect((await consume(appId, wrong, 'strict')).json).toEqual({
      status: 'INCORRECT_USER_INPUT_CODE_ERROR',
      failedCodeInputAttemptCount: 1,
      maximumCodeInputAttempts: 3,
    });
    // Checking a wrong code counts too.
    expect((await call('POST', path(appId, '/code/check', 'strict'), { body: wrong })).json).toEqual({
      status: 'INCORRECT_USER_INPUT_CODE_ERROR',
      failedCodeInputAttemptCount: 2,
      maximumCodeInputAttempts: 3,
    });
    expect((await listBy(appId, `preAuthSessionId=${created.preAuthSessionId}`, 'strict'))[0]).toMatchObject({
      failedCodeInputAttemptCount: 2,
    });
    // The attempt that reaches the limit removes the device.
    expect((await consume(appId, wrong, 'strict')).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect(await listBy(appId, 'email=tries@example.com', 'strict')).toEqual([]);
    expect((await consume(appId, withCode(created), 'strict')).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect(await userCount(appId)).toBe(0);

    // The public tenant keeps the default limit of 5.
    const other = await createCode(appId, { email: 'tries@example.com' });
    expect((await consume(appId, withCode(other, wrongCode(other)))).json).toMatchObject({
      maximumCodeInputAttempts: 5,
    });
  });

  it('refuses an expired code: EXPIRED_USER_INPUT_CODE_ERROR for the user input code, RESTART for the link', async () => {
    const appId = await appWithTenant('brief', { passwordless_code_lifetime: 1 });
    const created = await createCode(appId, { email: 'late@example.com' }, 'brief');
    expect(created.codeLifetime).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await consume(appId, withCode(created), 'brief')).json).toEqual({
      status: 'EXPIRED_USER_INPUT_CODE_ERROR',
      failedCodeInputAttemptCount: 1,
      maximumCodeInputAttempts: 5,
    });
    const link = await consume(
      appId,
      { preAuthSessionId: created.preAuthSessionId, linkCode: created.linkCode },
      'brief',
    );
    expect(link.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    const listed = await listBy(appId, `preAuthSessionId=${created.preAuthSessionId}`, 'brief');
    expect(listed[0].codes[0].codeLifetime).toBe(1);
    expect(await userCount(appId)).toBe(0);
  });

  it('of concurrent consumes of one code exactly one signs in', async () => {
    const appId = await createApp({}, [], 'pl');
    const created = await createCode(appId, { email: 'race@example.com' });
    const replies = await Promise.all(Array.from({ length: 10 }, () => consume(appId, withCode(created))));
    const statuses = replies.map((r) => r.json.status);
    expect(statuses.filter((s) => s === 'OK')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'RESTART_FLOW_ERROR')).toHaveLength(9);
    expect(await userCount(appId)).toBe(1);
  });

  it('never makes two users of two devices of one new email consumed at once', async () => {
    const appId = await createApp({}, [], 'pl');
    const a = await createCode(appId, { email: 'twice@example.com' });
    const b = await createCode(appId, { email: 'twice@example.com' });
    const replies = await Promise.all([consume(appId, withCode(a)), consume(appId, withCode(b))]);
    const ok = replies.filter((r) => r.json.status === 'OK');
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.json.user.id)).size).toBe(1);
    expect(await userCount(appId)).toBe(1);
    // Consuming one device removed the other devices of the email.
    expect(await listBy(appId, 'email=twice@example.com')).toEqual([]);
  });

  it('refuses bad input with the reference messages', async () => {
    const appId = await createApp({}, [], 'pl');
    const created = await createCode(appId, { email: 'input@example.com' });
    const other = await createCode(appId, { email: 'other@example.com' });
    const one = 'Please provide exactly one of linkCode or deviceId+userInputCode';
    const cases: [unknown, string][] = [
      [{}, "Field name 'preAuthSessionId' is invalid in JSON input"],
      [{ preAuthSessionId: 5, linkCode: 'x' }, "Field name 'preAuthSessionId' is invalid in JSON input"],
      [{ preAuthSessionId: created.preAuthSessionId }, one],
      [{ preAuthSessionId: created.preAuthSessionId, deviceId: created.deviceId }, one],
      [{ preAuthSessionId: created.preAuthSessionId, linkCode: created.linkCode, deviceId: created.deviceId }, one],
      [{ preAuthSessionId: created.preAuthSessionId, linkCode: created.linkCode, userInputCode: '1' }, one],
      [
        { preAuthSessionId: created.preAuthSessionId, linkCode: null },
        "Field name 'linkCode' is invalid in JSON input",
      ],
      [
        { preAuthSessionId: created.preAuthSessionId, deviceId: 1, userInputCode: '1' },
        "Field name 'deviceId' is invalid in JSON input",
      ],
      [
        { preAuthSessionId: created.preAuthSessionId, deviceId: created.deviceId, userInputCode: 1 },
        "Field name 'userInputCode' is invalid in JSON input",
      ],
      [{ preAuthSessionId: created.preAuthSessionId, linkCode: 'a+b/' }, 'Input encoding error in linkCode'],
      [
        { preAuthSessionId: created.preAuthSessionId, deviceId: '%%%', userInputCode: '1' },
        'Input encoding error in deviceId',
      ],
      [
        withCode({ ...created, preAuthSessionId: other.preAuthSessionId }),
        "preAuthSessionId and deviceId doesn't match",
      ],
    ];
    for (const route of ['/code/consume', '/code/check']) {
      for (const [body, message] of cases) {
        const reply = await call('POST', path(appId, route), { body });
        expect(`${reply.status} ${reply.text}`, `${route} ${JSON.stringify(body)}`).toBe(`400 ${message}`);
      }
    }
    // A padded preAuthSessionId names the same device (the reference strips '=').
    const padded = await consume(appId, { ...withCode(created), preAuthSessionId: `${created.preAuthSessionId}=` });
    expect(padded.json.status, padded.text).toBe('OK');
    // A link code presented with another device's preAuthSessionId, or none at all, restarts the flow.
    expect(
      (await consume(appId, { preAuthSessionId: created.preAuthSessionId, linkCode: other.linkCode })).json,
    ).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await consume(appId, { preAuthSessionId: 'nope', linkCode: other.linkCode })).json).toEqual({
      status: 'RESTART_FLOW_ERROR',
    });
  });

  it('checks a code without consuming it', async () => {
    const appId = await createApp({}, [], 'pl');
    const created = await createCode(appId, { email: 'check@example.com' });
    const checked = await call('POST', path(appId, '/code/check'), { body: withCode(created) });
    expect(checked.json).toEqual({
      status: 'OK',
      consumedDevice: {
        preAuthSessionId: created.preAuthSessionId,
        failedCodeInputAttemptCount: 0,
        email: 'check@example.com',
      },
    });
    const byLink = await call('POST', path(appId, '/code/check'), {
      body: { preAuthSessionId: created.preAuthSessionId, linkCode: created.linkCode },
    });
    expect(byLink.json.status).toBe('OK');
    expect(await userCount(appId)).toBe(0);
    expect((await consume(appId, withCode(created))).json.status).toBe('OK');
  });
});

describe('imported passwordless users', () => {
  it('an imported email user and an imported SMS user sign in as themselves, without a duplicate', async () => {
    const appId = await createApp({}, [], 'pl');
    const email = await importUser(appId, {
      externalUserId: 'email|pwless-1',
      loginMethods: [
        { recipeId: 'passwordless', email: 'Pat.Imported@Example.com', timeJoinedInMSSinceEpoch: 1_690_000_000_000 },
      ],
    });
    expect(email.status, email.text).toBe(200);
    const sms = await importUser(appId, {
      externalUserId: 'sms|phone-1',
      loginMethods: [
        { recipeId: 'passwordless', phoneNumber: '+1 (650) 555-0123', timeJoinedInMSSinceEpoch: 1_690_000_000_001 },
      ],
    });
    expect(sms.status, sms.text).toBe(200);
    expect(await userCount(appId)).toBe(2);

    const byEmail = await createCode(appId, { email: 'pat.imported@example.com' });
    const emailIn = await consume(appId, withCode(byEmail));
    expect(emailIn.json).toMatchObject({ status: 'OK', createdNewUser: false, recipeUserId: 'email|pwless-1' });
    expect(emailIn.json.user).toMatchObject({
      id: 'email|pwless-1',
      timeJoined: 1_690_000_000_000,
      emails: ['pat.imported@example.com'],
      // The code reached the email: it is verified now.
      loginMethods: [{ recipeId: 'passwordless', recipeUserId: 'email|pwless-1', verified: true }],
    });

    for (const written of ['+16505550123', '+1 650-555-0123', '(+1) 650 555 0123']) {
      const byPhone = await createCode(appId, { phoneNumber: written });
      const phoneIn = await consume(appId, { preAuthSessionId: byPhone.preAuthSessionId, linkCode: byPhone.linkCode });
      expect(phoneIn.json, written).toMatchObject({ status: 'OK', createdNewUser: false, recipeUserId: 'sms|phone-1' });
      expect(phoneIn.json.user).toMatchObject({
        id: 'sms|phone-1',
        phoneNumbers: ['+16505550123'],
        loginMethods: [{ recipeId: 'passwordless', verified: true }],
      });
    }
    expect(await userCount(appId)).toBe(2);
  });

  it('an imported user of another tenant is not this tenant’s: a new user is signed up here', async () => {
    const appId = await createApp({}, ['t1'], 'pl');
    const imported = await importUser(appId, {
      loginMethods: [{ recipeId: 'passwordless', email: 'elsewhere@example.com', tenantIds: ['t1'] }],
    });
    expect(imported.status, imported.text).toBe(200);
    const created = await createCode(appId, { email: 'elsewhere@example.com' });
    const reply = await consume(appId, withCode(created));
    expect(reply.json).toMatchObject({ status: 'OK', createdNewUser: true });
    expect(reply.json.user.id).not.toBe(imported.json.user.id);
    const inT1 = await createCode(appId, { email: 'elsewhere@example.com' }, 't1');
    expect((await consume(appId, withCode(inT1), 't1')).json).toMatchObject({
      createdNewUser: false,
      recipeUserId: imported.json.user.id,
    });
  });
});

describe('revoking and listing codes', () => {
  it('removes one code, then the device with its last code, and a device by preAuthSessionId', async () => {
    const appId = await createApp({}, [], 'pl');
    const first = await createCode(appId, { email: 'revoke@example.com' });
    const second = await createCode(appId, { deviceId: first.deviceId });
    const removed = await call('POST', path(appId, '/code/remove'), { body: { codeId: first.codeId } });
    expect(removed.json).toEqual({ status: 'OK' });
    const [device] = await listBy(appId, `preAuthSessionId=${first.preAuthSessionId}`);
    expect(device.codes.map((c: { codeId: string }) => c.codeId)).toEqual([second.codeId]);
    expect((await consume(appId, withCode(first))).json).toMatchObject({ status: 'INCORRECT_USER_INPUT_CODE_ERROR' });
    await call('POST', path(appId, '/code/remove'), { body: { codeId: second.codeId } });
    expect(await listBy(appId, `preAuthSessionId=${first.preAuthSessionId}`)).toEqual([]);
    // Unknown ids are not an error.
    expect((await call('POST', path(appId, '/code/remove'), { body: { codeId: randomUUID() } })).json).toEqual({
      status: 'OK',
    });

    const third = await createCode(appId, { email: 'revoke@example.com' });
    await call('POST', path(appId, '/code/remove'), { body: { preAuthSessionId: third.preAuthSessionId } });
    expect((await consume(appId, withCode(third))).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('removes every device of an email or phone number', async () => {
    const appId = await createApp({}, [], 'pl');
    const a = await createCode(appId, { email: 'all@example.com' });
    await createCode(appId, { email: 'all@example.com' });
    const keep = await createCode(appId, { email: 'keep@example.com' });
    await createCode(appId, { phoneNumber: '+16505550199' });
    expect(await listBy(appId, 'email=all@example.com')).toHaveLength(2);
    const removed = await call('POST', path(appId, '/codes/remove'), { body: { email: ' ALL@example.com' } });
    expect(removed.json).toEqual({ status: 'OK' });
    expect(await listBy(appId, 'email=all@example.com')).toEqual([]);
    expect((await consume(appId, withCode(a))).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect(await listBy(appId, 'email=keep@example.com')).toHaveLength(1);
    await call('POST', path(appId, '/codes/remove'), { body: { phoneNumber: '+1 650 555 0199' } });
    expect(await listBy(appId, `phoneNumber=${encodeURIComponent('+16505550199')}`)).toEqual([]);
    expect((await consume(appId, withCode(keep))).json.status).toBe('OK');
  });

  it('refuses bad input with the reference messages', async () => {
    const appId = await createApp({}, [], 'pl');
    const remove: [unknown, string, Record<string, string>?][] = [
      [{}, "Please provide either 'codeId' or 'preAuthSessionId'"],
      [{ codeId: 'a', preAuthSessionId: 'b' }, "Please provide only one of 'codeId' or 'preAuthSessionId'"],
      [{ codeId: 5 }, "Field name 'codeId' is invalid in JSON input"],
      [{ preAuthSessionId: 'b' }, "Field name 'codeId' is invalid in JSON input", { 'cdi-version': '4.0' }],
    ];
    for (const [body, message, headers] of remove) {
      const reply = await call('POST', path(appId, '/code/remove'), { body, ...(headers ? { headers } : {}) });
      expect(`${reply.status} ${reply.text}`, JSON.stringify(body)).toBe(`400 ${message}`);
    }
    for (const body of [{}, { email: 'a@b.c', phoneNumber: '+15555550100' }]) {
      const reply = await call('POST', path(appId, '/codes/remove'), { body });
      expect(`${reply.status} ${reply.text}`).toBe('400 Please provide exactly one of email or phoneNumber');
    }
    const one = 'Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId';
    for (const query of ['', '?email=a@b.c&phoneNumber=1', '?deviceId=AAAA&preAuthSessionId=x']) {
      const reply = await call('GET', `${path(appId, '/codes')}${query}`);
      expect(`${reply.status} ${reply.text}`, query).toBe(`400 ${one}`);
    }
    const bad = await call('GET', `${path(appId, '/codes')}?deviceId=${encodeURIComponent('a b')}`);
    expect(`${bad.status} ${bad.text}`).toBe('400 Input encoding error in deviceId');
    // Lookups of what cannot exist find nothing.
    expect(await listBy(appId, `email=${'x'.repeat(5000)}`)).toEqual([]);
    expect(await listBy(appId, `preAuthSessionId=${'x'.repeat(5000)}`)).toEqual([]);
  });
});

describe('what is stored, and what goes with a user, a tenant and an app', () => {
  it('stores codes, link codes and device ids only as hashes', async () => {
    const appId = await createApp({}, [], 'pl');
    const created = await createCode(appId, { email: 'hashes@example.com' });
    const resent = await createCode(appId, { deviceId: created.deviceId });
    const items = (await appItems(appId)).filter((item) => String(item.PK).includes('#PLESS#'));
    expect(items.map((i) => i.entityType).sort()).toEqual([
      'PASSWORDLESS_CODE',
      'PASSWORDLESS_CODE',
      'PASSWORDLESS_DEVICE',
    ]);
    const raw = JSON.stringify(items);
    for (const c of [created, resent]) {
      for (const secret of [
        c.userInputCode,
        c.linkCode,
        c.deviceId,
        Buffer.from(c.deviceId, 'base64').toString('base64url'),
      ]) {
        expect(raw.includes(secret), 'a code, link code or device id is stored in clear').toBe(false);
      }
      const linkCodeHash = createHash('sha256').update(Buffer.from(c.linkCode, 'base64url')).digest('base64url');
      const code = items.find((i) => i.codeId === c.codeId);
      expect(code?.linkCodeHash).toBe(`${linkCodeHash}=`);
      expect(code?.expiresAt).toBe(Math.ceil((c.timeCreated + c.codeLifetime) / 1000));
    }
    const device = items.find((i) => i.entityType === 'PASSWORDLESS_DEVICE');
    expect(device).toMatchObject({
      deviceIdHash: created.preAuthSessionId,
      email: 'hashes@example.com',
      failedAttempts: 0,
    });
    expect(Object.keys(device ?? {})).not.toContain('deviceId');
  });

  it('removing a user revokes the codes of its email and phone number', async () => {
    const appId = await createApp({}, [], 'pl');
    const created = await createCode(appId, { email: 'leaver@example.com' });
    const user = (await consume(appId, withCode(created))).json.user;
    const pending = await createCode(appId, { email: 'leaver@example.com' });
    const bystander = await createCode(appId, { email: 'stays@example.com' });
    const removed = await call('POST', `/appid-${appId}/user/remove`, { body: { userId: user.id } });
    expect(removed.json).toEqual({ status: 'OK' });
    expect(await listBy(appId, 'email=leaver@example.com')).toEqual([]);
    expect((await consume(appId, withCode(pending))).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect(await userCount(appId)).toBe(0);
    expect((await listBy(appId, 'email=stays@example.com'))[0].preAuthSessionId).toBe(bystander.preAuthSessionId);
  });

  it('removing a tenant removes its devices; removing the app removes all of them', async () => {
    const appId = await createApp({}, ['t1'], 'pl');
    await createCode(appId, { email: 'tenant@example.com' }, 't1');
    const kept = await createCode(appId, { email: 'tenant@example.com' });
    const removed = await call('POST', `/appid-${appId}/recipe/multitenancy/tenant/remove`, {
      body: { tenantId: 't1' },
    });
    expect(removed.json, removed.text).toEqual({ status: 'OK', didExist: true });
    const left = (await appItems(appId)).filter((item) => String(item.PK).includes('#PLESS#'));
    expect(left.every((item) => item.tenantId === 'public')).toBe(true);
    expect(left.some((item) => item.deviceIdHash === kept.preAuthSessionId)).toBe(true);

    const app = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId } });
    expect(app.json, app.text).toEqual({ status: 'OK', didExist: true });
    expect(await appItems(appId, { ownPartition: true })).toEqual([]);
  });

  it('validates the tenant settings with the reference messages', async () => {
    const appId = await createApp({}, [], 'pl');
    for (const [key, value] of [
      ['passwordless_code_lifetime', 0],
      ['passwordless_max_code_input_attempts', 0],
      ['passwordless_max_code_input_attempts', -3],
    ] as const) {
      const reply = await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
        body: { tenantId: 'cfg', coreConfig: { [key]: value } },
      });
      expect(`${reply.status} ${reply.text}`).toBe(`400 Invalid core config: '${key}' must be > 0`);
    }
  });
});

describe('the passwordless branch of PUT /recipe/user', () => {
  const stores = storesOf(baseTable);
  const deps = { users: { store: stores.users, now: Date.now, newId: randomUUID }, passwordless: stores.passwordless };

  it('changes the email and phone number, keeps them unique, and revokes the codes of both', async () => {
    const appId = await createApp({}, [], 'pl');
    const created = await createCode(appId, { email: 'before@example.com' });
    const user = (await consume(appId, withCode(created))).json.user;
    const taken = await importUser(appId, {
      loginMethods: [{ recipeId: 'passwordless', email: 'taken@example.com', phoneNumber: '+16505550111' }],
    });
    expect(taken.status, taken.text).toBe(200);
    const pendingOld = await createCode(appId, { email: 'before@example.com' });
    const pendingNew = await createCode(appId, { email: 'after@example.com' });

    expect(await updatePasswordlessUser(deps, appId, { recipeUserId: user.id, email: 'taken@example.com' })).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
    expect(await updatePasswordlessUser(deps, appId, { recipeUserId: user.id, phoneNumber: '+16505550111' })).toEqual({
      status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR',
    });
    expect(await updatePasswordlessUser(deps, appId, { recipeUserId: 'nobody', email: 'x@example.com' })).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
    await expect(
      updatePasswordlessUser(deps, appId, { recipeUserId: user.id, email: null, phoneNumber: null }),
    ).rejects.toThrow('You cannot clear both email and phone number of a user');

    expect(
      await updatePasswordlessUser(deps, appId, {
        recipeUserId: user.id,
        email: 'after@example.com',
        phoneNumber: '+16505550122',
      }),
    ).toEqual({ status: 'OK' });
    const after = (await call('GET', `/appid-${appId}/user/id?userId=${user.id}`)).json.user;
    expect(after.loginMethods[0]).toMatchObject({
      email: 'after@example.com',
      phoneNumber: '+16505550122',
      verified: false,
    });
    expect((await consume(appId, withCode(pendingOld))).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await consume(appId, withCode(pendingNew))).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    // The old email is free again; the new one signs the user in.
    const signIn = await createCode(appId, { phoneNumber: '+16505550122' });
    expect((await consume(appId, withCode(signIn))).json).toMatchObject({
      createdNewUser: false,
      recipeUserId: user.id,
    });

    // Clearing one contact keeps the other.
    expect(await updatePasswordlessUser(deps, appId, { recipeUserId: user.id, email: null })).toEqual({ status: 'OK' });
    const cleared = (await call('GET', `/appid-${appId}/user/id?userId=${user.id}`)).json.user;
    expect(cleared.emails).toEqual([]);
    expect(cleared.phoneNumbers).toEqual(['+16505550122']);
  });
});

describe('hostile input', () => {
  it('never answers a 5xx to arbitrary bodies and queries', async () => {
    const appId = await createApp({}, [], 'pl');
    const created = await createCode(appId, { email: 'fuzz@example.com' });
    const value = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.integer({ min: 0, max: 3000 }).map((n) => 'x'.repeat(n)),
      fc.constantFrom(
        created.deviceId,
        created.preAuthSessionId,
        created.linkCode,
        created.userInputCode,
        created.codeId,
        '',
        '=',
        'A===',
        '#',
        'İ'.repeat(300),
      ),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const field = fc.constantFrom(
      'email',
      'phoneNumber',
      'deviceId',
      'userInputCode',
      'preAuthSessionId',
      'linkCode',
      'codeId',
      'x',
    );
    const body = fc.dictionary(field, value, { maxKeys: 4 });
    const route = fc.constantFrom('/code', '/code/consume', '/code/check', '/code/remove', '/codes/remove');
    await fc.assert(
      fc.asyncProperty(route, body, async (r, b) => {
        const reply = await call('POST', path(appId, r), { body: b });
        expect(reply.status, `${r} ${JSON.stringify(b)} → ${reply.text}`).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    const query = fc.dictionary(
      field,
      fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(created.deviceId, 'x'.repeat(4000))),
      {
        maxKeys: 3,
      },
    );
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const reply = await call('GET', `${path(appId, '/codes')}?${new URLSearchParams(q)}`);
        expect(reply.status, `${JSON.stringify(q)} → ${reply.text}`).toBeLessThan(500);
      }),
      { numRuns: 80 },
    );
  });
});
