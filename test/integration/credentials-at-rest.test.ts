/**
 * Credentials at rest (docs/security.md "Credentials at rest"): staged credentials sealed under a data key table readers do
 * not have, erased when a row becomes FAILED, unreadable ones FAILED (never retried); API keys
 * stored as digests, the Firebase signer key sealed, fingerprints in responses; data written
 * before any of this still works and is converted on its next write.
 */
import { createHash, randomBytes } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import bcrypt from 'bcryptjs';
import { afterAll, describe, expect, it } from 'vitest';
import { RETRIES_EXHAUSTED_MESSAGE } from '#functions/domain/bulk-import/failed-rows.js';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { createLocalKeyProvider } from '#functions/storage/crypto/local-keys.js';
import { appPartition, tenantSortKey } from '#functions/storage/keys/apps.js';
import { STAGED_SK, stagedUserPartition, stagingDataKeyPartition } from '#functions/storage/keys/staging.js';
import { UNREADABLE_CREDENTIALS_MESSAGES } from '#functions/storage/staging/sealing.js';
import { totpStoreOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { handler as dlqConsumer } from '#functions/workers/dlq-consumer/handler.js';
import { createImportWorker } from '#functions/workers/import-worker/handler.js';
import {
  appItems,
  call,
  captureLogs,
  createApp,
  expectNoSecrets,
  importUser,
  itemText,
  listAll,
  readItem,
  signIn,
  sqsEvent,
  stage,
  stagedCount,
  userCount,
} from './bulk-support.js';

const logs = captureLogs();
const PLAIN = 'plain-Secret-at-rest-1';
const HASH_PASSWORD = 'hashed-Secret-at-rest-2';
const HASH = bcrypt.hashSync(HASH_PASSWORD, 4);
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPATREST';
const API_KEY = 'api-key-at-rest-0123456789';
const FIREBASE = {
  signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
  password: 'user1password',
  stored:
    '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==',
};
/** A user imported with the Firebase scrypt hash above. */
const FIREBASE_USER = {
  loginMethods: [
    {
      recipeId: 'emailpassword',
      email: 'fb@x.com',
      passwordHash: FIREBASE.stored,
      hashingAlgorithm: 'FIREBASE_SCRYPT',
    },
  ],
};
const SECRETS = [PLAIN, HASH, HASH_PASSWORD, TOTP_SECRET, API_KEY, FIREBASE.signerKey, FIREBASE.stored];

afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, SECRETS);
});

const ddb = () => getDocumentClient();
const rowKey = (appId: string, id: string) => ({ PK: stagedUserPartition(appId, id), SK: STAGED_SK });
const readRow = (appId: string, id: string) => readItem(rowKey(appId, id));
const readApp = (appId: string, tenantId = 'public') =>
  readItem({ PK: appPartition(appId), SK: tenantSortKey(tenantId) });

const worker = createImportWorker();
const plainUser = (email: string) => ({
  totpDevices: [{ secretKey: TOTP_SECRET, deviceName: 'phone' }],
  loginMethods: [{ recipeId: 'emailpassword', email, plainTextPassword: PLAIN }],
});
const hashedUser = (email: string) => ({
  loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: HASH, hashingAlgorithm: 'BCRYPT' }],
});

async function stageIds(appId: string, users: unknown[]): Promise<string[]> {
  const res = await stage(appId, users);
  expect(res.status, res.text).toBe(200);
  return res.json.users.map((u: { userId: string }) => u.userId);
}

function expectNoCredentials(item: Record<string, any>): void {
  expect(item.credentials).toBeUndefined();
  expect(item.dataKey).toBeUndefined();
  const user = JSON.parse(item.user);
  for (const lm of user.loginMethods) {
    expect(lm.passwordHash).toBeUndefined();
    expect(lm.plainTextPassword).toBeUndefined();
  }
  for (const device of user.totpDevices) expect(device.secretKey).toBeUndefined();
  for (const secret of SECRETS) expect(itemText(item).includes(secret)).toBe(false);
}

describe('staged credentials at rest', () => {
  it('keeps no credential in clear in the row, and its ciphertext does not contain them', async () => {
    const appId = await createApp({ mfa_enabled: true }, [], 'rest');
    const [plainId, hashedId] = await stageIds(appId, [plainUser('plain@x.com'), hashedUser('hashed@x.com')]);
    const plain = (await readRow(appId, plainId!))!;
    const hashed = (await readRow(appId, hashedId!))!;
    for (const item of [plain, hashed]) {
      expect(item.credentials).toBeInstanceOf(Uint8Array);
      for (const secret of SECRETS) expect(itemText(item).includes(secret), secret).toBe(false);
      const user = JSON.parse(item.user);
      expect(user.loginMethods[0]).not.toHaveProperty('passwordHash');
      expect(user.loginMethods[0]).not.toHaveProperty('plainTextPassword');
    }
    expect(JSON.parse(plain.user).totpDevices).toEqual([{ period: 30, skew: 1, deviceName: 'phone' }]);
    // One wrapped data key for the request's rows, stored once beside them.
    expect(hashed.dataKey).toBe(plain.dataKey);
    const key = (await readItem({ PK: stagingDataKeyPartition(appId), SK: plain.dataKey }))!;
    expect(key.wrapped).toBeInstanceOf(Uint8Array);
    for (const secret of SECRETS) expect(itemText(key).includes(secret)).toBe(false);
    // The status API shows the rest of the user, never the credentials.
    const listed = JSON.stringify(await listAll(appId));
    for (const secret of SECRETS) expect(listed.includes(secret)).toBe(false);
    expect(listed).toContain('plain@x.com');
  });

  it('imports sealed users: plain-text and hashed passwords sign in, the TOTP device keeps its secret', async () => {
    const appId = await createApp({ mfa_enabled: true }, [], 'rest');
    const ids = await stageIds(appId, [plainUser('p1@x.com'), hashedUser('h1@x.com')]);
    expect((await worker(sqsEvent(appId, ids))).batchItemFailures).toEqual([]);
    expect(await stagedCount(appId)).toBe(0);
    expect(await userCount(appId)).toBe(2);
    expect((await signIn(appId, 'p1@x.com', PLAIN)).json.status).toBe('OK');
    expect((await signIn(appId, 'h1@x.com', HASH_PASSWORD)).json.status).toBe('OK');
    expect((await signIn(appId, 'p1@x.com', 'wrong')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    // The device's secret is sealed at rest too; its store opens it.
    const devices = (await appItems(appId)).filter((i) => i.entityType === 'TOTP_DEVICE');
    expect(devices).toHaveLength(1);
    for (const secret of SECRETS) expect(itemText(devices[0]!).includes(secret)).toBe(false);
    expect(
      await totpStoreOf(baseTable)
        .forApp(appId)
        .openTotpDeviceSecret(devices[0]!.userId as string, 'phone'),
    ).toBe(TOTP_SECRET);
  });

  it('erases the credentials of a row that becomes FAILED: an import conflict, and retries run out', async () => {
    const appId = await createApp({ mfa_enabled: true }, [], 'rest');
    expect((await importUser(appId, hashedUser('taken@x.com'))).status).toBe(200);
    const [conflicting, exhausted] = await stageIds(appId, [plainUser('taken@x.com'), plainUser('dlq@x.com')]);
    expect((await worker(sqsEvent(appId, [conflicting!]))).batchItemFailures).toEqual([]);
    expect((await dlqConsumer(sqsEvent(appId, [exhausted!]))).batchItemFailures).toEqual([]);
    const failed = await listAll(appId, 'FAILED');
    expect(failed.map((u) => u.errorMessage).sort()).toEqual([
      'E003: A user with email taken@x.com already exists in emailpassword loginMethod.',
      RETRIES_EXHAUSTED_MESSAGE,
    ]);
    for (const id of [conflicting!, exhausted!]) {
      const item = (await readRow(appId, id))!;
      expect(item.status).toBe('FAILED');
      expectNoCredentials(item);
    }
  });

  it('reads rows staged before credentials were sealed, and erases their clear credentials when they fail', async () => {
    const appId = await createApp({ mfa_enabled: true }, [], 'rest');
    const [importable, failing] = await stageIds(appId, [plainUser('old1@x.com'), hashedUser('old2@x.com')]);
    // The rows as this core wrote them before: the whole user, credentials included, in clear.
    const legacy = (user: unknown, id: string) =>
      ddb().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: rowKey(appId, id),
          UpdateExpression: 'SET #u = :u REMOVE credentials, dataKey',
          ExpressionAttributeNames: { '#u': 'user' },
          ExpressionAttributeValues: { ':u': JSON.stringify(user) },
        }),
      );
    const stored = async (id: string) => JSON.parse((await readRow(appId, id))!.user);
    const withCredentials = (user: any, add: (lm: any, device?: any) => void) => {
      add(user.loginMethods[0], user.totpDevices[0]);
      return user;
    };
    await legacy(
      withCredentials(await stored(importable!), (lm, device) => {
        lm.plainTextPassword = PLAIN;
        device.secretKey = TOTP_SECRET;
      }),
      importable!,
    );
    await legacy(
      withCredentials(await stored(failing!), (lm) => {
        lm.passwordHash = HASH;
      }),
      failing!,
    );
    expect(itemText((await readRow(appId, failing!))!)).toContain(HASH);
    expect((await worker(sqsEvent(appId, [importable!]))).batchItemFailures).toEqual([]);
    expect((await signIn(appId, 'old1@x.com', PLAIN)).json.status).toBe('OK');
    expect((await dlqConsumer(sqsEvent(appId, [failing!]))).batchItemFailures).toEqual([]);
    const item = (await readRow(appId, failing!))!;
    expect(item.status).toBe('FAILED');
    expectNoCredentials(item);
    expect(JSON.parse(item.user).loginMethods[0].email).toBe('old2@x.com');
  });

  it('fails a row whose ciphertext was altered or moved to another row or app with a clear message, never retried', async () => {
    const appId = await createApp({}, [], 'rest');
    const other = await createApp({}, [], 'rest');
    const [altered, movedRow, source, intact, movedApp, movedAppWithKey] = await stageIds(appId, [
      hashedUser('a1@x.com'),
      hashedUser('a2@x.com'),
      hashedUser('a3@x.com'),
      hashedUser('a4@x.com'),
      hashedUser('a5@x.com'),
      hashedUser('a6@x.com'),
    ]);
    const [foreign] = await stageIds(other, [hashedUser('b1@x.com')]);
    const set = (id: string, values: Record<string, unknown>) =>
      ddb().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: rowKey(appId, id),
          UpdateExpression: `SET ${Object.keys(values)
            .map((_, i) => `#n${i} = :v${i}`)
            .join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(Object.keys(values).map((k, i) => [`#n${i}`, k])),
          ExpressionAttributeValues: Object.fromEntries(Object.values(values).map((v, i) => [`:v${i}`, v])),
        }),
      );
    const flipped = Buffer.from((await readRow(appId, altered!))!.credentials);
    flipped[flipped.length - 20]! ^= 0x01;
    await set(altered!, { credentials: flipped });
    await set(movedRow!, { credentials: (await readRow(appId, source!))!.credentials });
    const foreignRow = (await readRow(other, foreign!))!;
    await set(movedApp!, { credentials: foreignRow.credentials, dataKey: foreignRow.dataKey });
    // Moved with its data key item too: the key is bound to the other app.
    const foreignKey = (await readItem({ PK: stagingDataKeyPartition(other), SK: foreignRow.dataKey }))!;
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...foreignKey, PK: stagingDataKeyPartition(appId), SK: 'moved' },
      }),
    );
    await set(movedAppWithKey!, { credentials: foreignRow.credentials, dataKey: 'moved' });

    const ids = [altered!, movedRow!, source!, intact!, movedApp!, movedAppWithKey!];
    expect((await worker(sqsEvent(appId, ids))).batchItemFailures).toEqual([]);
    // A second delivery finds nothing to do: no retry loop.
    expect((await worker(sqsEvent(appId, ids))).batchItemFailures).toEqual([]);
    expect(await userCount(appId)).toBe(2);
    expect(await stagedCount(appId, 'FAILED')).toBe(4);
    expect(await stagedCount(appId, 'NEW')).toBe(0);
    const messageOf = async (id: string) => (await readRow(appId, id))!.errorMessage;
    expect(await messageOf(altered!)).toBe(UNREADABLE_CREDENTIALS_MESSAGES.altered);
    expect(await messageOf(movedRow!)).toBe(UNREADABLE_CREDENTIALS_MESSAGES.altered);
    expect(await messageOf(movedApp!)).toBe(UNREADABLE_CREDENTIALS_MESSAGES['key-missing']);
    expect(await messageOf(movedAppWithKey!)).toBe(UNREADABLE_CREDENTIALS_MESSAGES.altered);
    for (const id of [altered!, movedRow!, movedApp!, movedAppWithKey!])
      expectNoCredentials((await readRow(appId, id))!);
    expect(UNREADABLE_CREDENTIALS_MESSAGES.altered).toBe(
      'The staged credentials cannot be decrypted: the row was altered, or moved from another row or app. Stage the user again.',
    );
  });

  it('binds a row to the app and id the worker claimed it under, not to the appId and id attributes it carries', async () => {
    const appId = await createApp({}, [], 'rest');
    const other = await createApp({}, [], 'rest');
    const [source] = await stageIds(appId, [hashedUser('claimed-source@x.com')]);
    const [foreign] = await stageIds(other, [hashedUser('claimed-foreign@x.com')]);
    // Whole items copied under new keys, every attribute as it was: the other app's row (appId
    // `other`, its own id) into this app, and this app's row under another id.
    const copyAs = async (from: { appId: string; id: string }, to: string) => {
      const item = (await readRow(from.appId, from.id))!;
      await ddb().send(new PutCommand({ TableName: tableName(), Item: { ...item, ...rowKey(appId, to) } }));
    };
    const fromOtherApp = `copied-${randomBytes(6).toString('hex')}`;
    const fromOtherRow = `copied-${randomBytes(6).toString('hex')}`;
    await copyAs({ appId: other, id: foreign! }, fromOtherApp);
    await copyAs({ appId, id: source! }, fromOtherRow);
    expect((await readRow(appId, fromOtherApp))!.appId).toBe(other);
    expect((await readRow(appId, fromOtherRow))!.id).toBe(source);

    for (const ids of [[fromOtherApp], [fromOtherRow], [fromOtherApp, fromOtherRow]]) {
      expect((await worker(sqsEvent(appId, ids))).batchItemFailures).toEqual([]);
    }
    // Neither copy opened: no user of the other app's email here, no second user from the copy.
    expect((await signIn(appId, 'claimed-foreign@x.com', HASH_PASSWORD)).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await userCount(appId)).toBe(0);
    const copied = (id: string) => readRow(appId, id);
    expect((await copied(fromOtherApp))!.status).toBe('FAILED');
    expect((await copied(fromOtherApp))!.errorMessage).toBe(UNREADABLE_CREDENTIALS_MESSAGES['key-missing']);
    expect((await copied(fromOtherRow))!.status).toBe('FAILED');
    expect((await copied(fromOtherRow))!.errorMessage).toBe(UNREADABLE_CREDENTIALS_MESSAGES.altered);
    // The originals are untouched and still import.
    expect((await readRow(other, foreign!))!.status).toBe('NEW');
    expect((await readRow(appId, source!))!.status).toBe('NEW');
    expect((await worker(sqsEvent(appId, [source!]))).batchItemFailures).toEqual([]);
    expect((await signIn(appId, 'claimed-source@x.com', HASH_PASSWORD)).json.status).toBe('OK');
  });

  it('fails rows sealed under a key this core does not have (a lost local key file) with a message saying so', async () => {
    const appId = await createApp({}, [], 'rest');
    const [id] = await stageIds(appId, [hashedUser('lost@x.com')]);
    const row = (await readRow(appId, id!))!;
    // The row's data key as another local key (the one a lost key file held) wrapped it.
    const lost = await createLocalKeyProvider(randomBytes(32)).generateDataKey({
      purpose: 'staged-credentials',
      appId,
    });
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: stagingDataKeyPartition(appId), SK: row.dataKey },
        UpdateExpression: 'SET #w = :w',
        ExpressionAttributeNames: { '#w': 'wrapped' },
        ExpressionAttributeValues: { ':w': lost.wrapped },
      }),
    );
    expect((await worker(sqsEvent(appId, [id!]))).batchItemFailures).toEqual([]);
    const item = (await readRow(appId, id!))!;
    expect(item.status).toBe('FAILED');
    expect(item.errorMessage).toBe(UNREADABLE_CREDENTIALS_MESSAGES['other-key']);
    expect(item.errorMessage).toContain('the key file under DATA_DIR was replaced or lost');
    expectNoCredentials(item);
  });
});

describe('credentials in app configuration', () => {
  const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
  const fingerprint = (value: string) => `sha256:${sha256(value).slice(0, 16)}`;
  const keyed = (key: string) => ({ headers: { 'api-key': key } });

  it('shows fingerprints in list and get; stores API keys as digests and the signer key sealed', async () => {
    const second = 'second-api-key-0123456789';
    const appId = await createApp(
      { api_keys: `${API_KEY}, ${second}`, firebase_password_hashing_signer_key: FIREBASE.signerKey },
      [],
      'rest',
    );
    const expected = {
      api_keys: `${fingerprint(API_KEY)},${fingerprint(second)}`,
      firebase_password_hashing_signer_key: fingerprint(FIREBASE.signerKey),
    };
    const get = await call('GET', `/appid-${appId}/recipe/multitenancy/tenant/v2`, keyed(API_KEY));
    expect(get.json.coreConfig).toEqual(expected);
    const legacyGet = await call('GET', `/appid-${appId}/recipe/multitenancy/tenant`, keyed(second));
    expect(legacyGet.json.coreConfig).toEqual(expected);
    const list = await call('GET', '/recipe/multitenancy/app/list/v2');
    const listed = list.json.apps.find((a: { appId: string }) => a.appId === appId);
    expect(listed.tenants[0].coreConfig).toEqual(expected);
    for (const secret of SECRETS) expect(list.text.includes(secret)).toBe(false);

    const stored = (await readApp(appId))!;
    const digest = (v: string) => `sha256:${sha256(v)}`;
    expect(stored.coreConfig.api_keys).toBe(`${digest(API_KEY)},${digest(second)}`);
    expect(stored.coreConfig.firebase_password_hashing_signer_key).toMatch(/^sealed:v1:[0-9a-f]{64}:[A-Za-z0-9+/=]+$/);
    for (const secret of SECRETS) expect(itemText(stored).includes(secret)).toBe(false);

    // The keys still work; the signer key still verifies Firebase hashes.
    const unkeyed = await call('GET', `/appid-${appId}/recipe/roles`);
    expect([unkeyed.status, unkeyed.text]).toEqual([401, 'Invalid API key']);
    expect((await call('GET', `/appid-${appId}/recipe/roles`, keyed(API_KEY))).status).toBe(200);
    const imported = await call('POST', `/appid-${appId}/bulk-import/import`, {
      ...keyed(API_KEY),
      body: FIREBASE_USER,
    });
    expect(imported.status, imported.text).toBe(200);
    const signin = await call('POST', `/appid-${appId}/public/recipe/signin`, {
      ...keyed(API_KEY),
      body: { email: 'fb@x.com', password: FIREBASE.password },
    });
    expect(signin.json.status).toBe('OK');
  });

  it('keeps a key sent back as its fingerprint, refuses any other fingerprint, and still applies the key rules', async () => {
    const appId = await createApp(
      { api_keys: API_KEY, firebase_password_hashing_signer_key: FIREBASE.signerKey },
      [],
      'rest',
    );
    const before = (await readApp(appId))!.coreConfig;
    const put = (coreConfig: Record<string, unknown>) =>
      call('PUT', '/recipe/multitenancy/app/v2', { ...keyed(API_KEY), body: { appId, coreConfig } });
    const shown = (await call('GET', `/appid-${appId}/recipe/multitenancy/tenant/v2`, keyed(API_KEY))).json.coreConfig;
    const back = await put({ ...shown, account_linking_enabled: true });
    expect(back.status, back.text).toBe(200);
    const after = (await readApp(appId))!.coreConfig;
    expect(after.api_keys).toBe(before.api_keys);
    expect(after.firebase_password_hashing_signer_key).toBe(before.firebase_password_hashing_signer_key);
    expect(after.account_linking_enabled).toBe(true);
    expect((await call('GET', `/appid-${appId}/recipe/roles`, keyed(API_KEY))).status).toBe(200);

    for (const key of ['api_keys', 'firebase_password_hashing_signer_key']) {
      const wrong = await put({ [key]: fingerprint('not-the-stored-value-0123') });
      expect(wrong.status).toBe(400);
      expect(wrong.text).toBe(
        `Invalid core config: ${key} is a fingerprint (sha256:…) that does not match the stored value; send the key itself`,
      );
    }
    expect((await put({ api_keys: 'short' })).text).toBe(
      'Invalid core config: One of the API keys is too short. Please use at least 20 characters',
    );
    expect((await put({ api_keys: `${API_KEY},bad!key-0123456789012345` })).text).toBe(
      "Invalid core config: Invalid characters in API key. Please only use '=', '-' and alpha-numeric (including capitals)",
    );
    expect((await readApp(appId))!.coreConfig.api_keys).toBe(before.api_keys);
  });

  it('compares app-wide keys between tenants by digest', async () => {
    const appId = await createApp(
      { api_keys: API_KEY, firebase_password_hashing_signer_key: FIREBASE.signerKey },
      [],
      'rest',
    );
    const putTenant = (coreConfig: Record<string, unknown>) =>
      call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
        ...keyed(API_KEY),
        body: { tenantId: 't1', coreConfig },
      });
    const same = await putTenant({ api_keys: API_KEY, firebase_password_hashing_signer_key: FIREBASE.signerKey });
    expect(same.status, same.text).toBe(200);
    const differentKey = await putTenant({ api_keys: 'another-api-key-0123456789' });
    expect(differentKey.text).toBe(
      'Invalid core config: You cannot set different values for api_keys for the same appId',
    );
    const differentSigner = await putTenant({ firebase_password_hashing_signer_key: 'b3RoZXI=' });
    expect(differentSigner.text).toBe(
      'Invalid core config: You cannot set different values for firebase_password_hashing_signer_key for the same appId',
    );
    // The app's own keys against its tenant's (stored) ones.
    const app = await call('PUT', '/recipe/multitenancy/app/v2', {
      ...keyed(API_KEY),
      body: { appId, coreConfig: { api_keys: 'another-api-key-0123456789' } },
    });
    expect(app.text).toBe('Invalid core config: You cannot set different values for api_keys for the same appId');
  });

  it('keeps configuration written with credentials in clear working, and stores them as digests and sealed on its next write', async () => {
    const appId = await createApp({}, [], 'rest');
    // The app as this core stored it before: both credentials in clear.
    const item = (await readApp(appId))!;
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...item, coreConfig: { api_keys: API_KEY, firebase_password_hashing_signer_key: FIREBASE.signerKey } },
      }),
    );
    const unkeyed = await call('GET', `/appid-${appId}/recipe/roles`);
    expect([unkeyed.status, unkeyed.text]).toEqual([401, 'Invalid API key']);
    expect((await call('GET', `/appid-${appId}/recipe/roles`, keyed(API_KEY))).status).toBe(200);
    const shown = (await call('GET', `/appid-${appId}/recipe/multitenancy/tenant/v2`, keyed(API_KEY))).json.coreConfig;
    expect(shown).toEqual({
      api_keys: fingerprint(API_KEY),
      firebase_password_hashing_signer_key: fingerprint(FIREBASE.signerKey),
    });
    expect(
      (await call('POST', `/appid-${appId}/bulk-import/import`, { ...keyed(API_KEY), body: FIREBASE_USER })).status,
    ).toBe(200);
    const signin = () =>
      call('POST', `/appid-${appId}/public/recipe/signin`, {
        ...keyed(API_KEY),
        body: { email: 'fb@x.com', password: FIREBASE.password },
      });
    expect((await signin()).json.status).toBe('OK');
    // A tenant given the same keys in clear agrees with the app's clear ones.
    const tenant = await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, {
      ...keyed(API_KEY),
      body: { tenantId: 't1', coreConfig: { api_keys: API_KEY } },
    });
    expect(tenant.status, tenant.text).toBe(200);

    // The next write of the app's config converts both.
    const update = await call('PUT', '/recipe/multitenancy/app/v2', {
      ...keyed(API_KEY),
      body: { appId, coreConfig: { account_linking_enabled: true } },
    });
    expect(update.status, update.text).toBe(200);
    const converted = (await readApp(appId))!.coreConfig;
    expect(converted.api_keys).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(converted.firebase_password_hashing_signer_key).toMatch(/^sealed:v1:/);
    for (const secret of SECRETS) expect(JSON.stringify(converted).includes(secret)).toBe(false);
    expect((await call('GET', `/appid-${appId}/recipe/roles`, keyed(API_KEY))).status).toBe(200);
    expect((await signin()).json.status).toBe('OK');
  });

  it('does not open a signer key sealed for another app', async () => {
    const sealedFor = await createApp({ firebase_password_hashing_signer_key: FIREBASE.signerKey }, [], 'rest');
    const appId = await createApp({ firebase_password_hashing_signer_key: FIREBASE.signerKey }, [], 'rest');
    expect((await importUser(appId, FIREBASE_USER)).status).toBe(200);
    expect((await signIn(appId, 'fb@x.com', FIREBASE.password)).json.status).toBe('OK');
    const item = (await readApp(appId))!;
    const foreign = (await readApp(sealedFor))!.coreConfig.firebase_password_hashing_signer_key;
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...item, coreConfig: { ...item.coreConfig, firebase_password_hashing_signer_key: foreign } },
      }),
    );
    const refused = await signIn(appId, 'fb@x.com', FIREBASE.password);
    expect(refused.status).toBe(200);
    expect(refused.json.status).toBe('WRONG_CREDENTIALS_ERROR');
    expect(logs.lines.some((l) => l.includes('the app firebase signer key cannot be decrypted'))).toBe(true);
  });
});
