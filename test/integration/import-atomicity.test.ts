import { afterAll, describe, expect, it } from 'vitest';
import { type ImportConfig, importUser as importDirect } from '#functions/domain/import/import-user.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import { storesOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import {
  appItems,
  call,
  captureLogs,
  createApp,
  createRole,
  expectNoSecrets,
  importUser,
  insertRows,
  keysOf,
  normalisedUser,
} from './users-support.js';

const { users: userStore, staging } = storesOf(baseTable);
const logs = captureLogs();
const SECRETS = ['pw-atomic-1', 'pw-atomic-2', 'TOTPSECRETATOMIC'];
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, SECRETS);
});

const CONFIG: ImportConfig = {
  passwordHashingAlg: 'BCRYPT',
  bcryptLogRounds: 4,
  argon2: { iterations: 1, memoryKb: 1024, parallelism: 1 },
  accountLinkingEnabled: true,
  mfaEnabled: true,
};

/** A normalised import user with a plain-text password, primary (validation bypassed on purpose). */
const normalised = (email: string, extra: Partial<ImportUser> = {}) =>
  normalisedUser(email, { plainTextPassword: 'pw-atomic-2', isPrimary: true }, extra);

describe('atomicity of one user import', () => {
  it('a conflict in the middle of a user leaves nothing behind', async () => {
    const appId = await createApp({ account_linking_enabled: true, mfa_enabled: true });
    await createRole(appId, 'r1');
    const first = await importUser(appId, {
      loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155550100' }],
    });
    expect(first.status, first.text).toBe(200);
    const before = keysOf(await appItems(appId));

    const res = await importUser(appId, {
      externalUserId: 'ext-atomic',
      userMetadata: { a: 1 },
      userRoles: [{ role: 'r1', tenantIds: ['public'] }],
      totpDevices: [{ secretKey: 'TOTPSECRETATOMIC' }],
      loginMethods: [
        { recipeId: 'emailpassword', email: 'fresh@x.com', plainTextPassword: 'pw-atomic-1', isPrimary: true },
        { recipeId: 'thirdparty', email: 'fresh@x.com', thirdPartyId: 'google', thirdPartyUserId: 'g-fresh' },
        { recipeId: 'passwordless', phoneNumber: '+1 415 555 0100' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      errors: ['E007: A user with phoneNumber +14155550100 already exists in passwordless loginMethod.'],
    });
    expect(keysOf(await appItems(appId))).toEqual(before);
    const count = await call('GET', `/appid-${appId}/public/users/count`);
    expect(count.json.count).toBe(1);
  });

  it('reports one message per failing entity (E003, E005, E031) and writes nothing', async () => {
    const appId = await createApp({ account_linking_enabled: true });
    const first = await importUser(appId, {
      externalUserId: 'taken',
      loginMethods: [
        { recipeId: 'emailpassword', email: 'dup@x.com', plainTextPassword: 'pw-atomic-1', isPrimary: true },
        { recipeId: 'thirdparty', email: 'dup@x.com', thirdPartyId: 'google', thirdPartyUserId: 'g-dup' },
      ],
    });
    expect(first.status, first.text).toBe(200);
    const before = keysOf(await appItems(appId));
    const second = await importUser(appId, {
      externalUserId: 'taken',
      loginMethods: [
        { recipeId: 'emailpassword', email: 'dup@x.com', plainTextPassword: 'pw-atomic-1' },
        { recipeId: 'thirdparty', email: 'other@x.com', thirdPartyId: 'google', thirdPartyUserId: 'g-dup' },
      ],
    });
    expect(second.status).toBe(400);
    expect([...second.json.errors].sort()).toEqual(
      [
        'E003: A user with email dup@x.com already exists in emailpassword loginMethod.',
        'E005: A user with thirdPartyId google and thirdPartyUserId g-dup already exists in thirdparty loginMethod.',
        'E027: there is a conflicting account info',
        'E031: A user with externalId taken already exists',
      ].sort(),
    );
    expect(keysOf(await appItems(appId))).toEqual(before);
  });

  it('E030 when the external id is an existing user id', async () => {
    const appId = await createApp();
    const first = await importUser(appId, {
      loginMethods: [{ recipeId: 'emailpassword', email: 'u1@x.com', plainTextPassword: 'pw-atomic-1' }],
    });
    const res = await importUser(appId, {
      externalUserId: first.json.user.id,
      loginMethods: [{ recipeId: 'emailpassword', email: 'u2@x.com', plainTextPassword: 'pw-atomic-1' }],
    });
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([
      'E030: Cannot create a userId mapping where the externalId is also a SuperTokens userID',
    ]);
  });

  it('a missing role fails the whole user with E034 (validation bypassed)', async () => {
    const appId = await createApp({ account_linking_enabled: true, mfa_enabled: true });
    const user = normalised('role@x.com', { userRoles: [{ role: 'ghost', tenantIds: ['public'] }] });
    const before = keysOf(await appItems(appId));
    const outcome = await importDirect({ store: userStore }, { appId, user, config: CONFIG });
    expect(outcome).toEqual({
      kind: 'failed',
      errors: ['E034: Role does not exist! You need to pre-create the role before assigning it to the user.'],
      extraWriteIndexes: [],
    });
    expect(keysOf(await appItems(appId))).toEqual(before);
  });

  it('tells a duplicate delivery ("already imported") from a real conflict', async () => {
    const appId = await createApp({ account_linking_enabled: true, mfa_enabled: true });
    const user = normalised('dupe@x.com', { externalUserId: 'ext-dupe', userMetadata: { k: 'v' } });
    const first = await importDirect({ store: userStore }, { appId, user, config: CONFIG });
    expect(first.kind).toBe('imported');
    const items = keysOf(await appItems(appId));
    const second = await importDirect({ store: userStore }, { appId, user, config: CONFIG });
    expect(second).toEqual({ kind: 'already-imported', userId: user.id });
    // A different staged user with the same email is a real conflict.
    const other = await importDirect({ store: userStore }, { appId, user: normalised('dupe@x.com'), config: CONFIG });
    expect(other.kind).toBe('failed');
    expect(keysOf(await appItems(appId))).toEqual(items);
  });

  it('commits companion writes atomically and reports their condition failures by index', async () => {
    const appId = await createApp({ account_linking_enabled: true, mfa_enabled: true });
    // A staged row, claimed: the import deletes it in the user's own transaction.
    const staged = normalised('extra1@x.com');
    await insertRows(staging, appId, [staged]);
    expect((await staging.claim(appId, staged.id, Date.now()))?.status).toBe('PROCESSING');
    const ok = await importDirect(
      { store: userStore },
      { appId, user: staged, config: CONFIG, companions: { importedStagedRows: [staged.id] } },
    );
    expect(ok.kind).toBe('imported');
    expect(await staging.get(appId, staged.id)).toBeUndefined();
    expect(await staging.count(appId, 'PROCESSING')).toBe(0);

    // A row that is not PROCESSING (here: absent) cancels the whole write.
    const before = keysOf(await appItems(appId));
    const refused = await importDirect(
      { store: userStore },
      { appId, user: normalised('extra2@x.com'), config: CONFIG, companions: { importedStagedRows: ['absent-row'] } },
    );
    expect(refused).toEqual({ kind: 'extra-write-failed', extraWriteIndexes: [0] });
    expect(keysOf(await appItems(appId))).toEqual(before);
  });

  it('refuses a user that needs more than 100 transaction actions, before hashing', async () => {
    const appId = await createApp({ account_linking_enabled: true, mfa_enabled: true });
    const tenants = Array.from({ length: 120 }, (_, i) => `t${i}`);
    const user = normalised('big@x.com', { userRoles: [{ role: 'r', tenantIds: tenants }] });
    let hashed = false;
    const outcome = await importDirect(
      {
        store: userStore,
        hashPassword: async () => {
          hashed = true;
          return '$2a$04$x';
        },
      },
      { appId, user, config: CONFIG },
    );
    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' && outcome.errors[0]).toMatch(/needs \d+ storage operations but at most 100/);
    expect(hashed).toBe(false);
  });
});
