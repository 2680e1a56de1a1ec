/**
 * Hostile and careless input at every entry: hash costs beyond the bounds (single import, staging,
 * the worker, sign-in), credentials in messages that quote input, values DynamoDB could never
 * store (integers, metadata, ids), and the worker's classification of such errors.
 */
import { describe, expect, it } from 'vitest';
import { importUser as importDirect } from '#functions/domain/import/import-user.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import { storesOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { createImportWorker } from '#functions/workers/import-worker/handler.js';
import {
  appItems,
  call,
  createApp,
  importUser,
  insertRows,
  keysOf,
  listAll,
  normalisedUser,
  signIn,
  sqsEvent,
  stage,
  stagedCount,
  useBulkTestFile,
} from './bulk-support.js';

const { users: userStore, staging } = storesOf(baseTable);

const BCRYPT_20 = '$2a$20$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe';
const ARGON2_T1000 = `$argon2id$v=19$m=16,t=1000,p=1$${Buffer.alloc(16, 3).toString('base64').replace(/=+$/, '')}$${Buffer.alloc(32, 4).toString('base64').replace(/=+$/, '')}`;
const OK_HASH = '$2a$04$abcdefghijklmnopqrstuu5XwPGRwEj1m5dc8x1fFLhzmkmRkp4qC';
const PLAIN = 'hostile-Plain-password-1';
const TOTP_SECRET = `HOSTILETOTPSECRET${'Q'.repeat(250)}`;
const SECRETS = [BCRYPT_20, ARGON2_T1000, OK_HASH, PLAIN, TOTP_SECRET];

const BCRYPT_20_ERROR = 'Password hash is in invalid BCrypt format: cost 20 is above the limit of 14';
const ARGON2_T1000_ERROR = 'Password hash is in invalid Argon2 format: t 1000 is above the limit of 10';

// Staging sends messages; this file runs the worker itself and nobody consumes the queue.
const { logs } = useBulkTestFile(SECRETS);

const ep = (email: string, extra: Record<string, unknown> = {}) => ({
  recipeId: 'emailpassword',
  email,
  passwordHash: OK_HASH,
  hashingAlgorithm: 'BCRYPT',
  ...extra,
});

/** A normalised import user with the bcrypt hash OK_HASH unless `loginMethod` says otherwise. */
const normalised = (email: string, loginMethod: Record<string, unknown> = {}, extra: Partial<ImportUser> = {}) =>
  normalisedUser(email, { passwordHash: OK_HASH, hashingAlgorithm: 'BCRYPT', ...loginMethod }, extra);

/** Rows written as an older core (or a hand-made script) would have: no validation on the way in. */
async function stageDirectly(appId: string, users: ImportUser[]): Promise<void> {
  await insertRows(staging, appId, users);
}

async function failedMessages(appId: string): Promise<Record<string, string>> {
  const rows = await listAll(appId, 'FAILED');
  return Object.fromEntries(rows.map((r) => [r.loginMethods[0].email as string, r.errorMessage as string]));
}

/** Stages `users` directly, runs the worker on them and returns each FAILED row's message by email. */
async function workerFailures(appId: string, users: ImportUser[]): Promise<Record<string, string>> {
  await stageDirectly(appId, users);
  expect(
    await createImportWorker()(
      sqsEvent(
        appId,
        users.map((u) => u.id),
      ),
    ),
  ).toEqual({ batchItemFailures: [] });
  return failedMessages(appId);
}

/**
 * Stores `user` (a hash beyond the bounds) as a core before the bounds would have, then signs in:
 * wrong credentials, and the one warning saying why (without the hash).
 */
async function expectSignInRefusedUncomputed(appId: string, user: ImportUser, password: string): Promise<void> {
  const config = {
    passwordHashingAlg: 'BCRYPT',
    bcryptLogRounds: 4,
    argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
    accountLinkingEnabled: false,
    mfaEnabled: false,
  } as const;
  expect((await importDirect({ store: userStore }, { appId, user, config })).kind).toBe('imported');
  const before = logs.lines.length;
  const email = user.loginMethods[0]?.email as string;
  expect((await signIn(appId, email, password)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  const warnings = logs.lines.slice(before).filter((l) => l.includes('"level":"warn"'));
  expect(warnings.map((l) => JSON.parse(l).message)).toEqual([
    'sign-in refused: the stored password hash asks for more work than the hash cost bounds allow',
  ]);
  expect(warnings.join('\n')).not.toContain('$2a$20$');
}

describe('hash costs beyond the bounds', () => {
  it('are refused by the single import (400), staging (400 by index) and the worker (FAILED), and never computed at sign-in', async () => {
    const appId = await createApp();
    const single = await importUser(appId, { loginMethods: [ep('b20@x.io', { passwordHash: BCRYPT_20 })] });
    expect([single.status, single.json]).toEqual([400, { errors: [BCRYPT_20_ERROR] }]);
    const argon = await importUser(appId, {
      loginMethods: [ep('a1000@x.io', { passwordHash: ARGON2_T1000, hashingAlgorithm: 'ARGON2' })],
    });
    expect([argon.status, argon.json]).toEqual([400, { errors: [ARGON2_T1000_ERROR] }]);

    const staged = await stage(appId, [
      { loginMethods: [ep('ok@x.io')] },
      { loginMethods: [ep('b20@x.io', { passwordHash: BCRYPT_20 })] },
      { loginMethods: [ep('a1000@x.io', { passwordHash: ARGON2_T1000, hashingAlgorithm: 'argon2' })] },
    ]);
    expect(staged.status).toBe(400);
    expect(staged.json.users).toEqual([
      { index: 1, errors: [BCRYPT_20_ERROR] },
      { index: 2, errors: [ARGON2_T1000_ERROR] },
    ]);
    expect(await stagedCount(appId)).toBe(0);

    // Rows staged before the bounds existed: the worker's re-validation fails them, once.
    const old = [
      normalised('old-b20@x.io', { passwordHash: BCRYPT_20 }),
      normalised('old-a1000@x.io', { passwordHash: ARGON2_T1000, hashingAlgorithm: 'ARGON2' }),
    ];
    expect(await workerFailures(appId, old)).toEqual({
      'old-b20@x.io': `[${BCRYPT_20_ERROR}]`,
      'old-a1000@x.io': `[${ARGON2_T1000_ERROR}]`,
    });

    // A user stored before the bounds existed: sign-in answers wrong credentials without computing
    // (test/unit/signin.test.ts shows no KDF runs) and logs why, without the hash.
    await expectSignInRefusedUncomputed(appId, normalised('signin-b20@x.io', { passwordHash: BCRYPT_20 }), 'whatever');
  });
});

describe('hash costs beyond the bounds, given without hashingAlgorithm', () => {
  // A hash without an algorithm is allowed beside a plain-text password and stored as given (the
  // reference's quirk); sign-in infers its scheme from it, so its bounds are checked like any other.
  const undeclared = (email: string, passwordHash: string) => ({
    recipeId: 'emailpassword',
    email,
    passwordHash,
    plainTextPassword: PLAIN,
  });

  it('are refused by the single import, staging and the worker, and never computed at sign-in', async () => {
    const appId = await createApp();
    const single = await importUser(appId, { loginMethods: [undeclared('u-b20@x.io', BCRYPT_20)] });
    expect([single.status, single.json]).toEqual([400, { errors: [BCRYPT_20_ERROR] }]);
    const argon = await importUser(appId, { loginMethods: [undeclared('u-a1000@x.io', ARGON2_T1000)] });
    expect([argon.status, argon.json]).toEqual([400, { errors: [ARGON2_T1000_ERROR] }]);
    // Within the bounds (and a string in no hash form at all): stored as given, as before.
    expect((await importUser(appId, { loginMethods: [undeclared('u-ok@x.io', OK_HASH)] })).status).toBe(200);
    expect((await importUser(appId, { loginMethods: [undeclared('u-text@x.io', 'not a hash')] })).status).toBe(200);

    const staged = await stage(appId, [
      { loginMethods: [undeclared('u-ok2@x.io', OK_HASH)] },
      { loginMethods: [undeclared('u-b20@x.io', BCRYPT_20)] },
      { loginMethods: [undeclared('u-a1000@x.io', ARGON2_T1000)] },
    ]);
    expect(staged.status).toBe(400);
    expect(staged.json.users).toEqual([
      { index: 1, errors: [BCRYPT_20_ERROR] },
      { index: 2, errors: [ARGON2_T1000_ERROR] },
    ]);
    expect(await stagedCount(appId)).toBe(0);

    // Rows staged before the check: the worker's re-validation fails them, once.
    const withoutAlgorithm = (email: string, passwordHash: string) =>
      normalised(email, { passwordHash, hashingAlgorithm: undefined, plainTextPassword: PLAIN });
    const old = [withoutAlgorithm('u-old-b20@x.io', BCRYPT_20), withoutAlgorithm('u-old-a1000@x.io', ARGON2_T1000)];
    expect(await workerFailures(appId, old)).toEqual({
      'u-old-b20@x.io': `[${BCRYPT_20_ERROR}]`,
      'u-old-a1000@x.io': `[${ARGON2_T1000_ERROR}]`,
    });

    // Stored before the check: sign-in answers wrong credentials without computing it.
    await expectSignInRefusedUncomputed(appId, withoutAlgorithm('u-signin-b20@x.io', BCRYPT_20), PLAIN);
  });
});

describe('credentials in messages that quote input', () => {
  const noTenant = (email: string) => ep(email, { plainTextPassword: PLAIN, passwordHash: OK_HASH, tenantIds: [] });
  const longSecret = { totpDevices: [{ secretKey: TOTP_SECRET, period: 30 }] };

  it('are redacted with <redacted> in the single import, staging and FAILED rows', async () => {
    const appId = await createApp({ mfa_enabled: true });
    const replies: string[] = [];

    const lm = await importUser(appId, { loginMethods: [noTenant('nt@x.io')] });
    expect(lm.status).toBe(400);
    expect(lm.json.errors).toEqual([expect.stringMatching(/^LoginMethod '\{.*\}' has no tenantId$/)]);
    expect(lm.json.errors[0]).toContain('"passwordHash":"<redacted>"');
    expect(lm.json.errors[0]).toContain('"plainTextPassword":"<redacted>"');
    const totp = await importUser(appId, { ...longSecret, loginMethods: [ep('totp@x.io')] });
    expect(totp.json).toEqual({ errors: ['TOTP secretKey <redacted> is too long. Max length is 256.'] });
    replies.push(lm.text, totp.text);

    const staged = await stage(appId, [
      { loginMethods: [noTenant('s-nt@x.io')] },
      { ...longSecret, loginMethods: [ep('s-totp@x.io', { plainTextPassword: PLAIN })] },
    ]);
    expect(staged.status).toBe(400);
    expect(staged.json.users.map((u: { index: number }) => u.index)).toEqual([0, 1]);
    expect(staged.text).toContain('<redacted>');
    replies.push(staged.text);

    // Rows that got past an older staging: their FAILED messages quote the same, redacted.
    const old = [
      normalised('w-nt@x.io', { plainTextPassword: PLAIN, tenantIds: [] }),
      normalised('w-totp@x.io', {}, { totpDevices: [{ secretKey: TOTP_SECRET, period: 30, skew: 1 }] }),
    ];
    const failed = await workerFailures(appId, old);
    expect(failed['w-nt@x.io']).toMatch(/^\[LoginMethod '\{.*"passwordHash":"<redacted>".*\}' has no tenantId\]$/);
    expect(failed['w-totp@x.io']).toBe('[TOTP secretKey <redacted> is too long. Max length is 256.]');
    replies.push((await call('GET', `/appid-${appId}/bulk-import/users?status=FAILED`)).text);

    for (const reply of replies) for (const secret of SECRETS) expect(reply).not.toContain(secret);
  });
});

describe('values DynamoDB could never store', () => {
  const period = (value: number) => ({
    totpDevices: [{ secretKey: 'JBSWY3DPEHPK3PXP', period: value }],
    loginMethods: [{ recipeId: 'passwordless', email: `p${Math.random()}@x.io` }],
  });
  const nested = (depth: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { leaf: true };
    for (let level = 1; level < depth; level++) value = { a: value };
    return value;
  };

  it('are refused with 400 at the single import and at staging, leaving nothing behind', async () => {
    const appId = await createApp({ mfa_enabled: true });
    const items = keysOf(await appItems(appId));
    for (const value of [1e308, 2 ** 53, 2 ** 31]) {
      const res = await importUser(appId, period(value));
      expect([res.status, res.json]).toEqual([
        400,
        { errors: ['period should be of type integer for a totp device.'] },
      ]);
    }
    // Too deep for JSON.stringify here: sent as text.
    const deepJson = `{"loginMethods":[${JSON.stringify(ep('deep@x.io'))}],"userMetadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const deep = await call('POST', `/appid-${appId}/bulk-import/import`, { rawBody: deepJson });
    expect(deep.json).toEqual({ errors: ['userMetadata is nested too deeply. Max depth is 32.'] });
    const large = await importUser(appId, { userMetadata: { x: 'a'.repeat(390_000) }, loginMethods: [ep('big@x.io')] });
    expect(large.json).toEqual({ errors: ['userMetadata is too large. Max size is 350000 bytes.'] });

    const staged = await stage(appId, [
      period(1e308),
      { userMetadata: nested(33), loginMethods: [ep('deep@x.io')] },
      { userMetadata: { x: 'a'.repeat(390_000) }, loginMethods: [ep('big@x.io')] },
    ]);
    expect(staged.status).toBe(400);
    expect(staged.json.users).toEqual([
      { index: 0, errors: ['period should be of type integer for a totp device.'] },
      { index: 1, errors: ['userMetadata is nested too deeply. Max depth is 32.'] },
      { index: 2, errors: ['userMetadata is too large. Max size is 350000 bytes.'] },
    ]);
    // Nothing but the request's own record, freed: the same body sent again is a new request
    // (docs/bulk-import.md "Without a key"); it expires with its TTL.
    const after = await appItems(appId);
    const requests = after.filter((i) => i.entityType === 'IDEMPOTENT_REQUEST');
    expect(requests.map((i) => i.state)).toEqual(['FREE']);
    expect(keysOf(after.filter((i) => i.entityType !== 'IDEMPOTENT_REQUEST'))).toEqual(items);
    expect(await stagedCount(appId)).toBe(0);
  });

  it('a user whose import could never commit (over 100 actions) is refused at staging', async () => {
    const tenants = Array.from({ length: 60 }, (_, i) => `t${i}`);
    const appId = await createApp({ mfa_enabled: true }, tenants);
    const wide = { loginMethods: [ep('wide@x.io', { tenantIds: tenants })] };
    const staged = await stage(appId, [wide]);
    expect(staged.status).toBe(400);
    expect(staged.json.users).toEqual([
      { index: 0, errors: [expect.stringMatching(/^This user needs \d+ storage operations but at most 100 fit/)] },
    ]);
    expect(await stagedCount(appId)).toBe(0);
  });

  it('in the worker, an error a retry would not fix fails the row at once instead of being retried', async () => {
    const appId = await createApp({ mfa_enabled: true });
    const user = normalised('once@x.io');
    await stageDirectly(appId, [user]);
    // The import as it would run if a value slipped past validation: DynamoDB's client refuses a
    // TOTP period of 1e308 (beyond what a DynamoDB number holds).
    const worker = createImportWorker({
      importUser: (request) =>
        importDirect(
          { store: userStore },
          {
            ...request,
            user: { ...request.user, totpDevices: [{ secretKey: 'JBSWY3DPEHPK3PXP', period: 1e308, skew: 1 }] },
          },
        ),
    });
    expect(await worker(sqsEvent(appId, [user.id]))).toEqual({ batchItemFailures: [] });
    const failed = await failedMessages(appId);
    // The document client's refusal, as a 400-kind error that does not quote the number.
    expect(failed['once@x.io']).toBe(
      "Import failed: StoredValueRefusedError: The request's data holds a number DynamoDB cannot store: numbers must be between -9007199254740991 and 9007199254740991, and 0 or at least 1e-130 in magnitude.",
    );
    expect(await stagedCount(appId, 'FAILED')).toBe(1);
    expect(await stagedCount(appId, 'PROCESSING')).toBe(0);
  });
});

describe('ids longer than any stored one', () => {
  it('are refused with 400 in the path, the query and the body', async () => {
    const appId = await createApp();
    const app = `/appid-${appId}`;
    const long = (n: number) => 'a'.repeat(n);
    const cases: [string, string, Record<string, unknown> | undefined, string][] = [
      ['GET', `/appid-${long(10_000)}/recipe/roles`, undefined, 'The appId in the path is too long. Max length is 64.'],
      ['GET', `/appid-${long(65)}/hello`, undefined, 'The appId in the path is too long. Max length is 64.'],
      ['GET', `${app}/${long(65)}/users`, undefined, 'The tenantId in the path is too long. Max length is 64.'],
      ['PUT', '/recipe/multitenancy/app/v2', { appId: long(65) }, "Field name 'appId' is too long. Max length is 64."],
      [
        'PUT',
        `${app}/recipe/multitenancy/tenant/v2`,
        { tenantId: long(65) },
        "Field name 'tenantId' is too long. Max length is 64.",
      ],
      ['GET', `${app}/user/id?userId=${long(129)}`, undefined, "Field name 'userId' is too long. Max length is 128."],
      [
        'GET',
        `${app}/recipe/userid/map?userId=${long(129)}`,
        undefined,
        "Field name 'userId' is too long. Max length is 128.",
      ],
      ['POST', `${app}/user/remove`, { userId: long(129) }, "Field name 'userId' is too long. Max length is 128."],
      [
        'POST',
        `${app}/recipe/userid/map`,
        { superTokensUserId: 'u', externalUserId: long(129) },
        "Field name 'externalUserId' is too long. Max length is 128.",
      ],
      [
        'POST',
        `${app}/recipe/userid/map`,
        { superTokensUserId: 'u', externalUserId: 'e', externalUserIdInfo: long(1025) },
        "Field name 'externalUserIdInfo' is too long. Max length is 1024.",
      ],
      [
        'GET',
        `${app}/users/by-accountinfo?doUnionOfAccountInfo=true&email=${long(300)}`,
        undefined,
        "Field name 'email' is too long. Max length is 255.",
      ],
      [
        'GET',
        `${app}/users/by-accountinfo?doUnionOfAccountInfo=false&thirdPartyId=${long(29)}&thirdPartyUserId=x`,
        undefined,
        "Field name 'thirdPartyId' is too long. Max length is 28.",
      ],
      [
        'POST',
        `${app}/public/recipe/signup`,
        { email: `${long(300)}@x.io`, password: 'p' },
        "Field name 'email' is too long. Max length is 255.",
      ],
      [
        'POST',
        `${app}/bulk-import/users/remove`,
        { ids: ['ok', long(65)] },
        "Field name 'ids' is too long. Max length is 64.",
      ],
      [
        'GET',
        `${app}/users?paginationToken=${encodeURIComponent(Buffer.from(`${long(3000)};1`).toString('base64'))}`,
        undefined,
        'invalid pagination token',
      ],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await call(method, path, body ? { body } : {});
      expect([res.status, res.text], `${method} ${path.slice(0, 80)}`).toEqual([400, message]);
    }
    // Sign-in answers as for any unknown email (no such email can exist).
    const signin = await signIn(appId, `${long(3000)}@x.io`, 'p');
    expect(signin.json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });
});

describe('PUT /recipe/user/metadata', () => {
  it('refuses metadata nested deeper than 32 levels or larger than 350,000 bytes', async () => {
    const appId = await createApp();
    const put = (metadataUpdate: unknown) =>
      call('PUT', `/appid-${appId}/recipe/user/metadata`, { body: { userId: 'u1', metadataUpdate } });
    // Sent as text: JSON.stringify itself runs out of stack on the deepest.
    const putText = (metadataJson: string) =>
      call('PUT', `/appid-${appId}/recipe/user/metadata`, {
        rawBody: `{"userId":"u1","metadataUpdate":${metadataJson}}`,
      });
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const arrays = `{"a":${'['.repeat(32)}1${']'.repeat(32)}}`;
    for (const update of [deep, arrays]) {
      const res = await putText(update);
      expect([res.status, res.text]).toEqual([400, 'User metadata is nested too deeply. Max depth is 32.']);
    }
    expect((await put({ a: 1 })).json).toEqual({ status: 'OK', metadata: { a: 1 } });
    const big = await put({ b: 'x'.repeat(350_000) });
    expect([big.status, big.text]).toEqual([400, 'User metadata is too large. Max size is 350000 bytes.']);
    expect((await call('GET', `/appid-${appId}/recipe/user/metadata?userId=u1`)).json).toEqual({
      status: 'OK',
      metadata: { a: 1 },
    });
  });
});
