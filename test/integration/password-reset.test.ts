/**
 * Password reset (`/recipe/user/password/reset/token`, `…/consume`) and account updates
 * (`PUT /recipe/user`) through the real handlers against DynamoDB Local: the reference's answers
 * and messages, single use under concurrency, expiry by the tenant's lifetime, the other tokens
 * of a user removed at consumption, email uniqueness (and primary-user reservations) re-checked
 * in the update's transaction, tokens stored only as hashes, nothing left after a user's or an
 * app's removal, and no token, password or hash in any log line.
 */
import { createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appItems, call, captureLogs, createApp, expectNoSecrets, importUser, signIn } from './users-support.js';

const logs = captureLogs();
/** Every token, password and hash of this file: none may reach a log line. */
const SECRETS: string[] = [];
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, SECRETS);
});

const OLD_PASSWORD = 'reset-old-Password-1';
const NEW_PASSWORD = 'reset-new-Password-2';
const OLD_HASH = bcrypt.hashSync(OLD_PASSWORD, 4);
SECRETS.push(OLD_PASSWORD, NEW_PASSWORD, OLD_HASH);

let appId: string;
const base = () => `/appid-${appId}`;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

async function importEp(email: string, extra: Record<string, unknown> = {}, method: Record<string, unknown> = {}) {
  const res = await importUser(appId, {
    ...extra,
    loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: OLD_HASH, hashingAlgorithm: 'BCRYPT', ...method }],
  });
  expect(res.status, res.text).toBe(200);
  return res.json.user as { id: string; loginMethods: { recipeUserId: string; verified: boolean; email: string }[] };
}

async function createToken(userId: string, email: string, tenant = 'public', headers: Record<string, string> = {}) {
  const res = await call('POST', `${base()}/${tenant}/recipe/user/password/reset/token`, {
    body: { userId, email },
    headers,
  });
  expect(res.status, res.text).toBe(200);
  if (res.json.status === 'OK') SECRETS.push(res.json.token);
  return res.json as { status: string; token: string };
}

async function consume(token: string, tenant = 'public') {
  const res = await call('POST', `${base()}/${tenant}/recipe/user/password/reset/token/consume`, { body: { token } });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

async function update(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await call('PUT', `${base()}/recipe/user`, { body, headers });
  return res;
}

/** The password hash of a USER item's first login method. */
function storedHash(item: Record<string, unknown> | undefined): string {
  const methods = (item?.loginMethods ?? []) as { passwordHash?: string }[];
  return methods[0]?.passwordHash ?? '';
}

async function getUser(userId: string) {
  const res = await call('GET', `${base()}/user/id?userId=${encodeURIComponent(userId)}`);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

beforeAll(async () => {
  appId = await createApp({ account_linking_enabled: true }, ['t1'], 'reset');
  const short = await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
    body: { tenantId: 'short', coreConfig: { password_reset_token_lifetime: 1 } },
  });
  expect(short.status, short.text).toBe(200);
});

describe('POST /<t>/recipe/user/password/reset/token', () => {
  it('answers a 128-character URL-safe token for a user named by any of its ids, or UNKNOWN_USER_ID_ERROR', async () => {
    const user = await importEp('token-ids@example.com', { externalUserId: 'reset-ext-1' });
    const mapped = await call('GET', `${base()}/recipe/userid/map?userId=reset-ext-1`);
    const superTokensId = mapped.json.superTokensUserId as string;
    expect(user.id).toBe('reset-ext-1');
    for (const id of ['reset-ext-1', superTokensId]) {
      const { status, token } = await createToken(id, 'token-ids@example.com');
      expect(status).toBe('OK');
      expect(token).toMatch(/^[A-Za-z0-9]{128}$/);
    }
    expect(await createToken('no-such-user', 'x@example.com')).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it('gives a token to a user without an email/password login method, for the email given (the SDK then creates one)', async () => {
    const res = await importUser(appId, {
      loginMethods: [
        { recipeId: 'thirdparty', email: 'tp-only@example.com', thirdPartyId: 'google', thirdPartyUserId: 'g-reset' },
      ],
    });
    expect(res.status, res.text).toBe(200);
    const { status, token } = await createToken(res.json.user.id, 'Any@Example.com');
    expect(status).toBe('OK');
    // The email is kept as given, as in the reference.
    expect(await consume(token)).toEqual({ status: 'OK', userId: res.json.user.id, email: 'Any@Example.com' });
  });

  it("refuses bad input with the reference's messages; an unknown user is reported before a missing email", async () => {
    const user = await importEp('bad-input@example.com');
    const cases: [unknown, number, string][] = [
      [{ email: 'a@b.c' }, 400, "Field name 'userId' is invalid in JSON input"],
      [{ userId: 12, email: 'a@b.c' }, 400, "Field name 'userId' is invalid in JSON input"],
      [{ userId: null, email: 'a@b.c' }, 400, "Field name 'userId' is invalid in JSON input"],
      [{ userId: user.id }, 400, "Field name 'email' is invalid in JSON input"],
      [{ userId: user.id, email: null }, 400, "Field name 'email' is invalid in JSON input"],
      [{ userId: user.id, email: ['a'] }, 400, "Field name 'email' is invalid in JSON input"],
      [{ userId: 'x'.repeat(129), email: 'a@b.c' }, 400, "Field name 'userId' is too long. Max length is 128."],
    ];
    for (const [body, status, text] of cases) {
      const res = await call('POST', `${base()}/public/recipe/user/password/reset/token`, { body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.text).toBe(text);
    }
    const unknown = await call('POST', `${base()}/public/recipe/user/password/reset/token`, {
      body: { userId: 'nobody' },
    });
    expect(unknown.json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    const raw = await call('POST', `${base()}/public/recipe/user/password/reset/token`, { rawBody: 'nope' });
    expect([raw.status, raw.text]).toEqual([400, 'Invalid Json Input']);
    const tenant = await call('POST', `${base()}/nope/recipe/user/password/reset/token`, {
      body: { userId: user.id, email: 'a@b.c' },
    });
    expect(tenant.status).toBe(400);
    expect(tenant.text).toMatch(/^AppId or tenantId not found => /);
  });

  it("before CDI 4.0 takes the email of the user's only login method", async () => {
    const user = await importEp('legacy-cdi@example.com');
    const { status, token } = await createToken(user.id, 'ignored@example.com', 'public', { 'cdi-version': '3.0' });
    expect(status).toBe('OK');
    expect(await consume(token)).toEqual({ status: 'OK', userId: user.id, email: 'legacy-cdi@example.com' });
  });
});

describe('POST /<t>/recipe/user/password/reset/token/consume', () => {
  it('is single use, app-wide, removes the other tokens of the user and leaves other users’ tokens', async () => {
    const user = await importEp('single@example.com');
    const other = await importEp('single-other@example.com');
    const [a, b, c] = [
      await createToken(user.id, 'single@example.com'),
      await createToken(user.id, 'single@example.com', 't1'),
      await createToken(user.id, 'single@example.com'),
    ];
    const kept = await createToken(other.id, 'single-other@example.com');
    // A token of the app is consumed on any tenant of it.
    expect(await consume(b.token, 't1')).toEqual({ status: 'OK', userId: user.id, email: 'single@example.com' });
    for (const t of [a, b, c]) expect(await consume(t.token)).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
    expect(await consume(kept.token)).toMatchObject({ status: 'OK', userId: other.id });
    expect(await consume('not-a-token')).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
  });

  it('gives one OK to two concurrent consumptions of one token', async () => {
    const user = await importEp('race-consume@example.com');
    for (let round = 0; round < 5; round++) {
      const { token } = await createToken(user.id, 'race-consume@example.com');
      const answers = await Promise.all([consume(token), consume(token), consume(token, 't1')]);
      expect(answers.filter((a) => a.status === 'OK')).toHaveLength(1);
      expect(answers.filter((a) => a.status === 'RESET_PASSWORD_INVALID_TOKEN_ERROR')).toHaveLength(2);
    }
  });

  it("refuses a token older than its tenant's password_reset_token_lifetime, and removes it", async () => {
    const user = await importEp('expiry@example.com');
    const { token } = await createToken(user.id, 'expiry@example.com', 'short');
    await new Promise((r) => setTimeout(r, 20));
    expect(await consume(token, 'short')).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
    const left = (await appItems(appId)).filter(
      (i) => String(i.PK).includes(sha256(token)) || String(i.SK).includes(sha256(token)),
    );
    expect(left).toEqual([]);
    // The default lifetime of another tenant is an hour.
    const fresh = await createToken(user.id, 'expiry@example.com', 't1');
    expect(await consume(fresh.token, 'short')).toMatchObject({ status: 'OK' });
  });

  it('refuses a lifetime that is not positive with the reference message', async () => {
    for (const value of [0, -5]) {
      const res = await call('PUT', `${base()}/recipe/multitenancy/tenant/v2`, {
        body: { tenantId: 't1', coreConfig: { password_reset_token_lifetime: value } },
      });
      expect(res.status).toBe(400);
      expect(res.text).toBe("Invalid core config: 'password_reset_token_lifetime' must be >= 0");
    }
  });

  it('answers the external id of a mapped user and reads only a token', async () => {
    await importEp('mapped-consume@example.com', { externalUserId: 'reset-ext-2' });
    const { token } = await createToken('reset-ext-2', 'mapped-consume@example.com');
    expect(await consume(token)).toEqual({ status: 'OK', userId: 'reset-ext-2', email: 'mapped-consume@example.com' });
    for (const body of [{}, { token: 5 }, { token: null }]) {
      const res = await call('POST', `${base()}/public/recipe/user/password/reset/token/consume`, { body });
      expect([res.status, res.text]).toEqual([400, "Field name 'token' is invalid in JSON input"]);
    }
  });

  it('stores tokens only as their SHA-256', async () => {
    const user = await importEp('hashed@example.com');
    const { token } = await createToken(user.id, 'hashed@example.com');
    const items = await appItems(appId);
    expect(JSON.stringify(items).includes(token)).toBe(false);
    const mine = items.filter((i) => JSON.stringify(i).includes(sha256(token)));
    expect(mine.map((i) => i.entityType).sort()).toEqual(['ONE_TIME_TOKEN', 'USER_ONE_TIME_TOKEN']);
    for (const item of mine) {
      expect(item).toMatchObject({ tokenHash: sha256(token), email: 'hashed@example.com' });
      expect(typeof item.expiresAt).toBe('number');
      // DynamoDB's TTL attribute is in epoch seconds: about an hour from now.
      expect(item.expiresAt as number).toBeGreaterThan(Date.now() / 1000 + 3500);
    }
  });
});

describe('PUT /recipe/user', () => {
  it('sets a new password hashed with the app algorithm: the old one is refused, the new one accepted (the reset flow)', async () => {
    await importEp('flow@example.com', { externalUserId: 'reset-flow' });
    expect((await signIn(appId, 'flow@example.com', OLD_PASSWORD)).json.status).toBe('OK');
    const { token } = await createToken('reset-flow', 'flow@example.com');
    const consumed = await consume(token);
    expect(consumed).toEqual({ status: 'OK', userId: 'reset-flow', email: 'flow@example.com' });
    const res = await update({ recipeUserId: consumed.userId, password: NEW_PASSWORD });
    expect([res.status, res.json]).toEqual([200, { status: 'OK' }]);
    expect((await signIn(appId, 'flow@example.com', OLD_PASSWORD)).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    expect((await signIn(appId, 'flow@example.com', NEW_PASSWORD)).json).toMatchObject({
      status: 'OK',
      user: { id: 'reset-flow' },
    });
    // The test config hashes at bcrypt cost 4 (test/integration/users-support.ts).
    const stored = (await appItems(appId)).find(
      (i) => i.entityType === 'USER' && JSON.stringify(i).includes('flow@example.com'),
    );
    const hash = storedHash(stored);
    SECRETS.push(hash);
    expect(hash).toMatch(/^\$2a\$04\$/);
  });

  it("hashes with Argon2 at the app's cost when the app's algorithm is ARGON2", async () => {
    const argonApp = await createApp({ password_hashing_alg: 'ARGON2' }, [], 'reset-argon');
    const imported = await importUser(argonApp, {
      loginMethods: [
        { recipeId: 'emailpassword', email: 'argon@example.com', passwordHash: OLD_HASH, hashingAlgorithm: 'BCRYPT' },
      ],
    });
    const res = await call('PUT', `/appid-${argonApp}/recipe/user`, {
      body: { recipeUserId: imported.json.user.id, password: NEW_PASSWORD },
    });
    expect(res.json).toEqual({ status: 'OK' });
    const user = (await appItems(argonApp)).find((i) => i.entityType === 'USER');
    const hash = storedHash(user);
    SECRETS.push(hash);
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect((await signIn(argonApp, 'argon@example.com', NEW_PASSWORD)).json.status).toBe('OK');
    expect((await call('POST', '/recipe/multitenancy/app/remove', { body: { appId: argonApp } })).status).toBe(200);
  });

  it('changes the email: sign-in, lookups and uniqueness follow, the old email is free again', async () => {
    const user = await importEp('before@example.com');
    const res = await update({ recipeUserId: user.id, email: '  After@Example.COM ' });
    expect(res.json).toEqual({ status: 'OK' });
    expect((await getUser(user.id)).user).toMatchObject({ emails: ['after@example.com'] });
    expect((await signIn(appId, 'after@example.com', OLD_PASSWORD)).json.status).toBe('OK');
    expect((await signIn(appId, 'before@example.com', OLD_PASSWORD)).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    const byInfo = await call(
      'GET',
      `${base()}/public/users/by-accountinfo?email=after@example.com&doUnionOfAccountInfo=false`,
    );
    expect(byInfo.json.users.map((u: { id: string }) => u.id)).toEqual([user.id]);
    const reuse = await call('POST', `${base()}/public/recipe/signup`, {
      body: { email: 'before@example.com', password: NEW_PASSWORD },
    });
    expect(reuse.json.status).toBe('OK');
    // Both email and password at once.
    const both = await update({ recipeUserId: user.id, email: 'after2@example.com', password: NEW_PASSWORD });
    expect(both.json).toEqual({ status: 'OK' });
    expect((await signIn(appId, 'after2@example.com', NEW_PASSWORD)).json.status).toBe('OK');
  });

  it('answers EMAIL_ALREADY_EXISTS_ERROR for an email taken in one of the user’s tenants, and only there', async () => {
    const a = await importEp('taken-a@example.com');
    await importEp('taken-b@example.com');
    await importEp('other-tenant@example.com', {}, { tenantIds: ['t1'] });
    expect((await update({ recipeUserId: a.id, email: 'taken-b@example.com' })).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
    expect((await getUser(a.id)).user.emails).toEqual(['taken-a@example.com']);
    expect((await update({ recipeUserId: a.id, email: 'other-tenant@example.com' })).json).toEqual({ status: 'OK' });
    // The same email again is no change.
    expect((await update({ recipeUserId: a.id, email: 'other-tenant@example.com' })).json).toEqual({ status: 'OK' });
  });

  it('lets one of two users racing for one email win', async () => {
    for (let round = 0; round < 4; round++) {
      const users = [await importEp(`racer${round}a@example.com`), await importEp(`racer${round}b@example.com`)];
      const target = `prize${round}@example.com`;
      const answers = await Promise.all(users.map((u) => update({ recipeUserId: u.id, email: target })));
      const statuses = answers.map((a) => a.json.status).sort();
      expect(statuses).toEqual(['EMAIL_ALREADY_EXISTS_ERROR', 'OK']);
      const owners = await call(
        'GET',
        `${base()}/public/users/by-accountinfo?email=${target}&doUnionOfAccountInfo=false`,
      );
      expect(owners.json.users).toHaveLength(1);
    }
  });

  it('answers EMAIL_CHANGE_NOT_ALLOWED_ERROR when another primary user of a tenant of a primary user has the email', async () => {
    const primary = await importUser(appId, {
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'prim-a@example.com',
          passwordHash: OLD_HASH,
          hashingAlgorithm: 'BCRYPT',
          isPrimary: true,
        },
        { recipeId: 'thirdparty', email: 'prim-a@example.com', thirdPartyId: 'github', thirdPartyUserId: 'gh-prim-a' },
      ],
    });
    expect(primary.status, primary.text).toBe(200);
    const other = await importUser(appId, {
      loginMethods: [
        {
          recipeId: 'thirdparty',
          email: 'prim-b@example.com',
          thirdPartyId: 'github',
          thirdPartyUserId: 'gh-prim-b',
          isPrimary: true,
        },
      ],
    });
    expect(other.status, other.text).toBe(200);
    const epMethod = primary.json.user.loginMethods.find((lm: { recipeId: string }) => lm.recipeId === 'emailpassword');
    expect((await update({ recipeUserId: epMethod.recipeUserId, email: 'prim-b@example.com' })).json).toEqual({
      status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New email is associated with another primary user ID',
    });
    // A recipe user that is no primary user may take it (the reference checks primary users only).
    const plain = await importEp('not-primary@example.com');
    expect((await update({ recipeUserId: plain.id, email: 'prim-b@example.com' })).json).toEqual({ status: 'OK' });
    // The primary user's own reservations move with its email.
    expect((await update({ recipeUserId: epMethod.recipeUserId, email: 'prim-c@example.com' })).json).toEqual({
      status: 'OK',
    });
    expect((await getUser(primary.json.user.id)).user.emails.sort()).toEqual([
      'prim-a@example.com',
      'prim-c@example.com',
    ]);
  });

  it('answers UNKNOWN_USER_ID_ERROR for an unknown id and for a user without an email/password method of that id', async () => {
    expect((await update({ recipeUserId: 'nobody', password: NEW_PASSWORD })).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
    const tp = await importUser(appId, {
      loginMethods: [
        { recipeId: 'thirdparty', email: 'tp-put@example.com', thirdPartyId: 'google', thirdPartyUserId: 'g-put' },
      ],
    });
    expect((await update({ recipeUserId: tp.json.user.id, email: 'x@example.com' })).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
  });

  it("refuses bad input with the reference's messages", async () => {
    const cases: [unknown, string][] = [
      [{ password: 'x' }, "Field name 'recipeUserId' is invalid in JSON input"],
      [{ recipeUserId: 1, password: 'x' }, "Field name 'recipeUserId' is invalid in JSON input"],
      [{ recipeUserId: 'u' }, 'You have to provide either email or password.'],
      [{ recipeUserId: 'u', email: null }, "Field name 'email' is invalid in JSON input"],
      [{ recipeUserId: 'u', password: false }, "Field name 'password' is invalid in JSON input"],
      [{ recipeUserId: 'u', email: `${'e'.repeat(256)}@x` }, "Field name 'email' is too long. Max length is 255."],
    ];
    for (const [body, text] of cases) {
      const res = await update(body as Record<string, unknown>);
      expect([res.status, res.text], JSON.stringify(body)).toEqual([400, text]);
    }
    const tenant = await call('PUT', `${base()}/t1/recipe/user`, { body: { recipeUserId: 'u', password: 'x' } });
    expect([tenant.status, tenant.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
  });

  it('reads userId before CDI 4.0, and sends rid passwordless to the passwordless recipe’s update', async () => {
    const user = await importEp('cdi3-put@example.com');
    const res = await update({ userId: user.id, email: 'cdi3-put2@example.com' }, { 'cdi-version': '3.0' });
    expect(res.json).toEqual({ status: 'OK' });
    const passwordless = await update({ recipeUserId: user.id, email: 'x@example.com' }, { rid: 'passwordless' });
    // The passwordless update looks for a passwordless login method of that id: this user has none.
    expect([passwordless.status, passwordless.json]).toEqual([200, { status: 'UNKNOWN_USER_ID_ERROR' }]);
  });

  it('moves the verification states with the email, as the reference keeps them per (user id, email)', async () => {
    const user = await importEp('ev-move@example.com', {}, { isVerified: true });
    const verified = async (email: string) =>
      (await call('GET', `${base()}/recipe/user/email/verify?userId=${user.id}&email=${encodeURIComponent(email)}`))
        .json.isVerified;
    expect((await update({ recipeUserId: user.id, email: 'ev-new@example.com' })).json.status).toBe('OK');
    expect((await getUser(user.id)).user.loginMethods[0]).toMatchObject({
      email: 'ev-new@example.com',
      verified: false,
    });
    expect(await verified('ev-move@example.com')).toBe(true);
    expect(await verified('ev-new@example.com')).toBe(false);
    // Back to the old email: verified again.
    expect((await update({ recipeUserId: user.id, email: 'ev-move@example.com' })).json.status).toBe('OK');
    expect((await getUser(user.id)).user.loginMethods[0]).toMatchObject({
      email: 'ev-move@example.com',
      verified: true,
    });
  });
});

describe('removal', () => {
  it("removes a user's tokens with the user, and every token with the app", async () => {
    const user = await importEp('removed@example.com', { externalUserId: 'reset-removed' });
    const { token } = await createToken('reset-removed', 'removed@example.com');
    const hash = sha256(token);
    const holding = async (id: string) => (await appItems(id)).filter((i) => JSON.stringify(i).includes(hash));
    expect(await holding(appId)).toHaveLength(2);
    const removed = await call('POST', `${base()}/user/remove`, { body: { userId: user.id } });
    expect(removed.json).toEqual({ status: 'OK' });
    expect(await holding(appId)).toEqual([]);
    expect(await consume(token)).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });

    const other = await createApp({}, [], 'reset-gone');
    const imported = await importUser(other, {
      loginMethods: [
        { recipeId: 'emailpassword', email: 'gone@example.com', passwordHash: OLD_HASH, hashingAlgorithm: 'BCRYPT' },
      ],
    });
    const made = await call('POST', `/appid-${other}/public/recipe/user/password/reset/token`, {
      body: { userId: imported.json.user.id, email: 'gone@example.com' },
    });
    SECRETS.push(made.json.token);
    expect((await appItems(other)).some((i) => i.entityType === 'ONE_TIME_TOKEN')).toBe(true);
    expect((await call('POST', '/recipe/multitenancy/app/remove', { body: { appId: other } })).status).toBe(200);
    expect(await appItems(other, { ownPartition: true })).toEqual([]);
  });
});
