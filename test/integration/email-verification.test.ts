/**
 * Email verification (`/recipe/user/email/verify…`) through the real handlers against DynamoDB
 * Local: the reference's answers and messages; the verified state agrees with the user object
 * (`loginMethods[].verified` of `GET /user/id`, sign-in) for a signed-up user, an imported verified
 * and an imported unverified user; external ids; ids that are no user's; tokens per tenant,
 * single use under concurrency, expiry by the tenant's lifetime, revocation; tokens stored only
 * as hashes; nothing left after a user's or an app's removal; no token in any log line.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appItems, call, captureLogs, createApp, expectNoSecrets, importUser } from './users-support.js';

const logs = captureLogs();
const SECRETS: string[] = [];
const PASSWORD = 'ev-Password-secret-1';
SECRETS.push(PASSWORD);
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, SECRETS);
});

let appId: string;
const base = () => `/appid-${appId}`;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

beforeAll(async () => {
  appId = await createApp({}, ['t1'], 'ev');
  const short = await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
    body: { tenantId: 'short', coreConfig: { email_verification_token_lifetime: 1 } },
  });
  expect(short.status, short.text).toBe(200);
});

async function createToken(userId: string, email: string, tenant = 'public') {
  const res = await call('POST', `${base()}/${tenant}/recipe/user/email/verify/token`, { body: { userId, email } });
  expect(res.status, res.text).toBe(200);
  if (res.json.status === 'OK') SECRETS.push(res.json.token);
  return res.json as { status: string; token: string };
}

async function verify(token: string, tenant = 'public') {
  const res = await call('POST', `${base()}/${tenant}/recipe/user/email/verify`, { body: { method: 'token', token } });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

async function isVerified(userId: string, email: string): Promise<boolean> {
  const q = `userId=${encodeURIComponent(userId)}&email=${encodeURIComponent(email)}`;
  const res = await call('GET', `${base()}/recipe/user/email/verify?${q}`);
  expect(res.status, res.text).toBe(200);
  expect(Object.keys(res.json).sort()).toEqual(['isVerified', 'status']);
  return res.json.isVerified;
}

async function unverify(userId: string, email: string) {
  const res = await call('POST', `${base()}/recipe/user/email/verify/remove`, { body: { userId, email } });
  expect([res.status, res.json]).toEqual([200, { status: 'OK' }]);
}

async function revoke(userId: string, email: string, tenant = 'public') {
  const res = await call('POST', `${base()}/${tenant}/recipe/user/email/verify/token/remove`, {
    body: { userId, email },
  });
  expect([res.status, res.json]).toEqual([200, { status: 'OK' }]);
}

/** `verified` of the login method whose email this is, as `GET /user/id` shows it. */
async function userObjectVerified(userId: string, email: string): Promise<boolean> {
  const res = await call('GET', `${base()}/user/id?userId=${encodeURIComponent(userId)}`);
  expect(res.json.status).toBe('OK');
  const method = res.json.user.loginMethods.find((lm: { email?: string }) => lm.email === email);
  return method.verified;
}

/** is-verified and the user object agree, and say `expected`. */
async function expectState(userId: string, email: string, expected: boolean) {
  expect(await isVerified(userId, email), `is-verified ${userId} ${email}`).toBe(expected);
  expect(await userObjectVerified(userId, email), `user object ${userId} ${email}`).toBe(expected);
}

async function importEp(email: string, extra: Record<string, unknown> = {}, method: Record<string, unknown> = {}) {
  const res = await importUser(appId, {
    ...extra,
    loginMethods: [{ recipeId: 'emailpassword', email, plainTextPassword: PASSWORD, ...method }],
  });
  expect(res.status, res.text).toBe(200);
  return res.json.user as { id: string };
}

describe('verified state and the user object', () => {
  it('a signed-up user: unverified, verified by a token, unverified again; sign-in shows the same', async () => {
    const signup = await call('POST', `${base()}/public/recipe/signup`, {
      body: { email: 'Signed@Example.com', password: PASSWORD },
    });
    const id = signup.json.user.id as string;
    await expectState(id, 'signed@example.com', false);
    const { status, token } = await createToken(id, ' SIGNED@example.com ');
    expect(status).toBe('OK');
    expect(token).toMatch(/^[A-Za-z0-9]{128}$/);
    expect(await verify(token)).toEqual({ status: 'OK', userId: id, email: 'signed@example.com' });
    await expectState(id, 'signed@example.com', true);
    const signin = await call('POST', `${base()}/public/recipe/signin`, {
      body: { email: 'signed@example.com', password: PASSWORD },
    });
    expect(signin.json.user.loginMethods[0].verified).toBe(true);
    expect(await createToken(id, 'signed@example.com')).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });
    await unverify(id, 'Signed@Example.com');
    await expectState(id, 'signed@example.com', false);
  });

  it("an imported user's isVerified is what the endpoints report, both ways", async () => {
    const verified = await importEp('imported-yes@example.com', {}, { isVerified: true });
    const unverified = await importEp('imported-no@example.com', {}, { isVerified: false });
    await expectState(verified.id, 'imported-yes@example.com', true);
    await expectState(unverified.id, 'imported-no@example.com', false);
    expect(await createToken(verified.id, 'imported-yes@example.com')).toEqual({
      status: 'EMAIL_ALREADY_VERIFIED_ERROR',
    });
    await unverify(verified.id, 'imported-yes@example.com');
    await expectState(verified.id, 'imported-yes@example.com', false);
    const { token } = await createToken(unverified.id, 'imported-no@example.com');
    expect(await verify(token)).toMatchObject({ status: 'OK', userId: unverified.id });
    await expectState(unverified.id, 'imported-no@example.com', true);
    // A third-party login method's email is verified the same way.
    const tp = await importUser(appId, {
      loginMethods: [
        {
          recipeId: 'thirdparty',
          email: 'tp-ev@example.com',
          thirdPartyId: 'google',
          thirdPartyUserId: 'g-ev',
          isVerified: true,
        },
      ],
    });
    await expectState(tp.json.user.id, 'tp-ev@example.com', true);
  });

  it('external ids: every call takes the external id, answers speak it, and the SuperTokens id names the same state', async () => {
    await importEp('mapped-ev@example.com', { externalUserId: 'ev-ext-1' });
    const superTokensId = (await call('GET', `${base()}/recipe/userid/map?userId=ev-ext-1`)).json.superTokensUserId;
    await expectState('ev-ext-1', 'mapped-ev@example.com', false);
    const { token } = await createToken('ev-ext-1', 'mapped-ev@example.com');
    expect(await verify(token)).toEqual({ status: 'OK', userId: 'ev-ext-1', email: 'mapped-ev@example.com' });
    await expectState('ev-ext-1', 'mapped-ev@example.com', true);
    expect(await isVerified(superTokensId, 'mapped-ev@example.com')).toBe(true);
    await unverify(superTokensId, 'mapped-ev@example.com');
    await expectState('ev-ext-1', 'mapped-ev@example.com', false);
    // A token created with the SuperTokens id answers with that id.
    const bySuperTokensId = await createToken(superTokensId, 'mapped-ev@example.com');
    expect(await verify(bySuperTokensId.token)).toEqual({
      status: 'OK',
      userId: superTokensId,
      email: 'mapped-ev@example.com',
    });
  });

  it("keeps the state of any (id, email): an email that is not the login method's, an id that is no user", async () => {
    const user = await importEp('own@example.com');
    const { token } = await createToken(user.id, 'second@example.com');
    expect(await verify(token)).toEqual({ status: 'OK', userId: user.id, email: 'second@example.com' });
    expect(await isVerified(user.id, 'second@example.com')).toBe(true);
    await expectState(user.id, 'own@example.com', false);

    const stranger = await createToken('not-a-user', 'stranger@example.com');
    expect(await verify(stranger.token)).toEqual({ status: 'OK', userId: 'not-a-user', email: 'stranger@example.com' });
    expect(await isVerified('not-a-user', 'stranger@example.com')).toBe(true);
    expect(await createToken('not-a-user', 'stranger@example.com')).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });
    await unverify('not-a-user', 'stranger@example.com');
    expect(await isVerified('not-a-user', 'stranger@example.com')).toBe(false);
    // The query's email is taken as given (the reference does not normalise it there).
    const caps = await importEp('caps@example.com', {}, { isVerified: true });
    expect(await isVerified(caps.id, 'CAPS@example.com')).toBe(false);
    expect(await isVerified(caps.id, 'caps@example.com')).toBe(true);
  });
});

describe('tokens', () => {
  it('belong to their tenant, are single use and take the other tokens of (id, email) with them', async () => {
    const user = await importEp('tenanted@example.com', {}, { tenantIds: ['public', 't1'] });
    const inT1 = await createToken(user.id, 'tenanted@example.com', 't1');
    expect(await verify(inT1.token)).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    const sibling = await createToken(user.id, 'tenanted@example.com', 't1');
    const elsewhere = await createToken(user.id, 'tenanted@example.com', 'public');
    expect(await verify(inT1.token, 't1')).toMatchObject({ status: 'OK' });
    expect(await verify(inT1.token, 't1')).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await verify(sibling.token, 't1')).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    // The public tenant's token was not the same tenant's: it stays, and verifies (already verified).
    expect(await verify(elsewhere.token)).toMatchObject({ status: 'OK' });
    expect(await verify('no-such-token')).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
  });

  it('gives one OK to concurrent uses of one token', async () => {
    for (let round = 0; round < 4; round++) {
      const user = await importEp(`race-ev${round}@example.com`);
      const { token } = await createToken(user.id, `race-ev${round}@example.com`);
      const answers = await Promise.all([verify(token), verify(token), verify(token)]);
      expect(answers.filter((a) => a.status === 'OK')).toHaveLength(1);
      await expectState(user.id, `race-ev${round}@example.com`, true);
    }
  });

  it("refuses a token older than its tenant's email_verification_token_lifetime, and removes it", async () => {
    const user = await importEp('ev-expiry@example.com', {}, { tenantIds: ['short'] });
    const { token } = await createToken(user.id, 'ev-expiry@example.com', 'short');
    await new Promise((r) => setTimeout(r, 20));
    expect(await verify(token, 'short')).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    await expectState(user.id, 'ev-expiry@example.com', false);
    expect((await appItems(appId)).filter((i) => JSON.stringify(i).includes(sha256(token)))).toEqual([]);
    const res = await call('PUT', `${base()}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: 'short', coreConfig: { email_verification_token_lifetime: 0 } },
    });
    expect([res.status, res.text]).toEqual([
      400,
      "Invalid core config: 'email_verification_token_lifetime' must be >= 0",
    ]);
  });

  it('are revoked for (id, email) in the tenant, by any id of the owner', async () => {
    await importEp('revoke@example.com', { externalUserId: 'ev-ext-revoke' });
    const superTokensId = (await call('GET', `${base()}/recipe/userid/map?userId=ev-ext-revoke`)).json
      .superTokensUserId;
    const a = await createToken('ev-ext-revoke', 'revoke@example.com');
    const b = await createToken(superTokensId, 'revoke@example.com');
    const other = await createToken('ev-ext-revoke', 'revoke@example.com', 't1');
    await revoke('ev-ext-revoke', 'REVOKE@example.com');
    expect(await verify(a.token)).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await verify(b.token)).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await verify(other.token, 't1')).toMatchObject({ status: 'OK', userId: 'ev-ext-revoke' });
    await revoke('nobody-at-all', 'x@example.com');
  });

  it('are stored only as their SHA-256, with the TTL attribute', async () => {
    const user = await importEp('ev-hashed@example.com');
    const { token } = await createToken(user.id, 'ev-hashed@example.com', 't1');
    const items = await appItems(appId);
    expect(JSON.stringify(items).includes(token)).toBe(false);
    const mine = items.filter((i) => JSON.stringify(i).includes(sha256(token)));
    expect(mine.map((i) => i.entityType).sort()).toEqual(['ONE_TIME_TOKEN', 'USER_ONE_TIME_TOKEN']);
    for (const item of mine) {
      expect(item).toMatchObject({ tokenHash: sha256(token), tenantId: 't1', email: 'ev-hashed@example.com' });
      // A day from now, in epoch seconds.
      expect(item.expiresAt as number).toBeGreaterThan(Date.now() / 1000 + 86_000);
    }
  });
});

describe('bad input', () => {
  it("is refused with the reference's messages", async () => {
    const posts: [string, unknown, string][] = [
      ['/public/recipe/user/email/verify/token', { email: 'a@b.c' }, "Field name 'userId' is invalid in JSON input"],
      ['/public/recipe/user/email/verify/token', { userId: 'u' }, "Field name 'email' is invalid in JSON input"],
      [
        '/public/recipe/user/email/verify/token',
        { userId: 'u', email: 7 },
        "Field name 'email' is invalid in JSON input",
      ],
      ['/public/recipe/user/email/verify', { token: 't' }, "Field name 'method' is invalid in JSON input"],
      ['/public/recipe/user/email/verify', { method: 'token' }, "Field name 'token' is invalid in JSON input"],
      ['/public/recipe/user/email/verify', { method: 'code', token: 't' }, 'Unsupported method for email verification'],
      ['/public/recipe/user/email/verify/token/remove', { userId: 'u' }, "Field name 'email' is invalid in JSON input"],
      ['/recipe/user/email/verify/remove', { email: 'a@b.c' }, "Field name 'userId' is invalid in JSON input"],
      ['/recipe/user/email/verify/remove', { userId: 'u', email: null }, "Field name 'email' is invalid in JSON input"],
    ];
    for (const [path, body, text] of posts) {
      const res = await call('POST', `${base()}${path}`, { body });
      expect([res.status, res.text], `${path} ${JSON.stringify(body)}`).toEqual([400, text]);
    }
    const gets: [string, string][] = [
      ['email=a@b.c', "Field name 'userId' is missing in GET request"],
      ['userId=u', "Field name 'email' is missing in GET request"],
    ];
    for (const [query, text] of gets) {
      const res = await call('GET', `${base()}/recipe/user/email/verify?${query}`);
      expect([res.status, res.text]).toEqual([400, text]);
    }
    const scoped = await call('POST', `${base()}/t1/recipe/user/email/verify/remove`, {
      body: { userId: 'u', email: 'a@b.c' },
    });
    expect([scoped.status, scoped.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    const unknownTenant = await call('POST', `${base()}/nope/recipe/user/email/verify/token`, {
      body: { userId: 'u', email: 'a@b.c' },
    });
    expect(unknownTenant.status).toBe(400);
    expect(unknownTenant.text).toMatch(/^AppId or tenantId not found => /);
  });
});

describe('removal', () => {
  it('removes tokens and verified emails with their user (by any id), and everything with the app', async () => {
    const user = await importEp('ev-removed@example.com', { externalUserId: 'ev-ext-removed' });
    const pending = await createToken('ev-ext-removed', 'ev-removed@example.com');
    const other = await createToken('ev-ext-removed', 'other-removed@example.com');
    expect(await verify(other.token)).toMatchObject({ status: 'OK' });
    const superTokensId = (await call('GET', `${base()}/recipe/userid/map?userId=ev-ext-removed`)).json
      .superTokensUserId;
    const owned = async () =>
      (await appItems(appId)).filter(
        (i) => String(i.PK).endsWith(`#U#${superTokensId}`) || JSON.stringify(i).includes(sha256(pending.token)),
      );
    expect((await owned()).map((i) => i.entityType).sort()).toEqual([
      'ONE_TIME_TOKEN',
      'USER',
      'USER_ONE_TIME_TOKEN',
      'VERIFIED_EMAIL',
    ]);
    const removed = await call('POST', `${base()}/user/remove`, { body: { userId: user.id } });
    expect(removed.json).toEqual({ status: 'OK' });
    expect(await owned()).toEqual([]);
    expect(await isVerified('ev-ext-removed', 'other-removed@example.com')).toBe(false);

    const gone = await createApp({}, [], 'ev-gone');
    const made = await call('POST', `/appid-${gone}/public/recipe/user/email/verify/token`, {
      body: { userId: 'anyone', email: 'a@example.com' },
    });
    SECRETS.push(made.json.token);
    const second = await call('POST', `/appid-${gone}/public/recipe/user/email/verify/token`, {
      body: { userId: 'anyone', email: 'b@example.com' },
    });
    SECRETS.push(second.json.token);
    await call('POST', `/appid-${gone}/public/recipe/user/email/verify`, {
      body: { method: 'token', token: second.json.token },
    });
    expect((await appItems(gone)).map((i) => i.entityType).sort()).toEqual([
      'ONE_TIME_TOKEN',
      'USER_ONE_TIME_TOKEN',
      'VERIFIED_EMAIL',
    ]);
    expect((await call('POST', '/recipe/multitenancy/app/remove', { body: { appId: gone } })).status).toBe(200);
    expect(await appItems(gone, { ownPartition: true })).toEqual([]);
  });
});
