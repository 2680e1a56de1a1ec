import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { argon2id } from 'hash-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { getBaseConfig, resolveEffectiveConfig } from '#functions/config/index.js';
import { needsRehash, verifyPassword } from '#functions/domain/passwords/index.js';
import type { PasswordPorts, UsersDeps } from '#functions/domain/users/deps.js';
import type { UserRecord } from '#functions/domain/users/model.js';
import { signIn as signInUseCaseWith } from '#functions/domain/users/sign-in.js';
import { storedHashVerifier } from '#functions/domain/users/stored-hash.js';
import { passwordPorts } from '#functions/wiring/passwords.js';
import { loadRequestTenants } from '#functions/wiring/request.js';
import { storesOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { usersDeps } from '#functions/wiring/users.js';
import { call, captureLogs, createApp, expectNoSecrets, importUser, signIn } from './users-support.js';

/** The sign-in use case of an app without a password-migration hook: the stored hash checks the password. */
const signInUseCase = (
  deps: UsersDeps,
  ports: PasswordPorts,
  target: { appId: string; tenantId: string },
  input: { email: string; password: string },
) => signInUseCaseWith(deps, ports, target, input, storedHashVerifier(deps, ports));

/**
 * A legacy hash is replaced with the app's algorithm at the first successful sign-in, in a write
 * that applies only if the stored hash is still the one verified. The concurrent cases run the
 * sign-in use case with the real store and a port wrapper that changes the stored user between
 * the verify and the write.
 */

const logs = captureLogs();
const SECRETS: string[] = [];
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, SECRETS);
});

/** One known hash per legacy family (docs/password-hashes.md's examples; their sources are in passwords-vectors.test.ts). */
const LEGACY = [
  {
    family: 'PBKDF2 (Django)',
    algorithm: 'PBKDF2',
    hash: 'pbkdf2_sha256$10000$kjVJaVz6qsnJ$5yPHw3rwJGECpUf70daLGhOrQ5+AMxIJdz1c3bqK1Rs=',
    password: 'not a password',
  },
  {
    family: 'scrypt',
    algorithm: 'SCRYPT',
    hash: '$scrypt$ln=10,r=8,p=16$TmFDbA$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWI',
    password: 'password',
  },
  { family: 'phpass', algorithm: 'PHPASS', hash: '$H$9PE8jEklgZhgLmZl5.HYJAzfGCQtzi1', password: '123456' },
  { family: 'MD5', algorithm: 'MD5', hash: '5f4dcc3b5aa765d61d8327deb882cf99', password: 'password' },
  { family: 'LDAP', algorithm: 'LDAP', hash: '{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr', password: 'testing123' },
] as const;
// `password` itself is a word of the core's log messages: the other passwords and every hash are searched for.
for (const c of LEGACY) SECRETS.push(c.hash, ...(c.password === 'password' ? [] : [c.password]));

const users = storesOf(baseTable).users;

async function stored(appId: string, email: string, tenantId = 'public') {
  const found = await users.getEmailPasswordUser(appId, tenantId, email);
  if (!found) throw new Error(`no user ${email}`);
  const method = found.user.loginMethods.find((lm) => lm.recipeUserId === found.recipeUserId);
  const hash = method?.passwordHash;
  if (!hash) throw new Error(`no hash for ${email}`);
  SECRETS.push(hash);
  return { user: found.user, recipeUserId: found.recipeUserId, hash };
}

async function importHash(appId: string, email: string, passwordHash: string, hashingAlgorithm: string) {
  const res = await importUser(appId, {
    loginMethods: [{ recipeId: 'emailpassword', email, passwordHash, hashingAlgorithm }],
  });
  expect(res.status, res.text).toBe(200);
}

/** A bcrypt hash (cost 4) of `password`; both are credentials the logs must never show. */
function secretBcrypt(password: string): string {
  const hash = bcrypt.hashSync(password, 4);
  SECRETS.push(password, hash);
  return hash;
}

async function expectSignIn(appId: string, email: string, password: string, status = 'OK') {
  const res = await signIn(appId, email, password);
  expect(res.status, res.text).toBe(200);
  expect(res.json.status, `${email}: ${res.text}`).toBe(status);
  return res.json;
}

/** The use case with the app's real dependencies, `hash` wrapped to act between the verify and the write. */
async function signInWith(appId: string, email: string, password: string, beforeHash: () => Promise<void>) {
  const { config } = await loadRequestTenants(appId, 'public');
  const ports = passwordPorts(config);
  const wrapped: PasswordPorts = {
    ...ports,
    hash: async (plain) => {
      await beforeHash();
      return ports.hash(plain);
    },
  };
  return signInUseCase(usersDeps(config), wrapped, { appId, tenantId: 'public' }, { email, password });
}

describe('legacy password hashes are upgraded at the first sign-in', () => {
  it('replaces each legacy family with bcrypt at the configured cost; the password keeps working, a second sign-in writes nothing', async () => {
    const appId = await createApp();
    for (const [i, c] of LEGACY.entries()) await importHash(appId, `legacy${i}@x.com`, c.hash, c.algorithm);

    for (const [i, c] of LEGACY.entries()) {
      const email = `legacy${i}@x.com`;
      const before = await stored(appId, email);
      expect(needsRehash(before.hash), c.family).toBe(true);

      const first = await expectSignIn(appId, email, c.password);
      const after = await stored(appId, email);
      // bcrypt at the base's bcrypt_log_rounds (4 in these tests), the same form sign-up writes.
      expect(after.hash, c.family).toMatch(/^\$2a\$04\$[./A-Za-z0-9]{53}$/);
      expect(await verifyPassword(c.password, after.hash, { firebaseSignerKey: undefined })).toEqual({ ok: true });
      expect(after.user.version).toBe(before.user.version + 1);
      // Nothing else about the user changed.
      expect({ ...after.user, loginMethods: [], version: 0 }).toEqual({ ...before.user, loginMethods: [], version: 0 });
      expect(after.user.loginMethods.map(({ passwordHash: _, ...rest }) => rest)).toEqual(
        before.user.loginMethods.map(({ passwordHash: _, ...rest }) => rest),
      );

      const second = await expectSignIn(appId, email, c.password);
      expect(second).toEqual(first);
      const again = await stored(appId, email);
      expect(again.hash).toBe(after.hash);
      expect(again.user.version).toBe(after.user.version);
      await expectSignIn(appId, email, `${c.password}-wrong`, 'WRONG_CREDENTIALS_ERROR');
    }
  });

  it('uses Argon2id with the base settings when the app hashes with ARGON2, as its sign-ups do', async () => {
    const appId = await createApp({ password_hashing_alg: 'ARGON2' });
    const c = LEGACY[0];
    await importHash(appId, 'argon@x.com', c.hash, c.algorithm);
    await expectSignIn(appId, 'argon@x.com', c.password);
    const upgraded = (await stored(appId, 'argon@x.com')).hash;
    SECRETS.push('signup-pass-2');
    const up = await call('POST', `/appid-${appId}/public/recipe/signup`, {
      body: { email: 'fresh@x.com', password: 'signup-pass-2' },
    });
    expect(up.json.status).toBe('OK');
    const signedUp = (await stored(appId, 'fresh@x.com')).hash;
    const settings = (hash: string) => hash.split('$').slice(0, 4).join('$');
    expect(settings(upgraded)).toBe('$argon2id$v=19$m=1024,t=1,p=1');
    expect(settings(upgraded)).toBe(settings(signedUp));
    await expectSignIn(appId, 'argon@x.com', c.password);
    await expectSignIn(appId, 'argon@x.com', 'wrong', 'WRONG_CREDENTIALS_ERROR');
  });

  it('keeps bcrypt, Argon2 and Firebase-style hashes, wrong passwords and the app switch off untouched', async () => {
    const appId = await createApp();
    const bcryptHash = secretBcrypt('kept-bcrypt-1');
    await importHash(appId, 'bcrypt@x.com', bcryptHash, 'BCRYPT');
    await expectSignIn(appId, 'bcrypt@x.com', 'kept-bcrypt-1');
    expect((await stored(appId, 'bcrypt@x.com')).hash).toBe(bcryptHash);

    const c = LEGACY[1];
    await importHash(appId, 'wrong@x.com', c.hash, c.algorithm);
    const before = await stored(appId, 'wrong@x.com');
    await expectSignIn(appId, 'wrong@x.com', 'not-the-password', 'WRONG_CREDENTIALS_ERROR');
    expect(await stored(appId, 'wrong@x.com')).toEqual(before);

    const off = await createApp({ legacy_password_hash_upgrade_enabled: false });
    for (const [i, legacy] of LEGACY.entries()) {
      await importHash(off, `off${i}@x.com`, legacy.hash, legacy.algorithm);
      const kept = await stored(off, `off${i}@x.com`);
      await expectSignIn(off, `off${i}@x.com`, legacy.password);
      await expectSignIn(off, `off${i}@x.com`, legacy.password);
      expect(await stored(off, `off${i}@x.com`), legacy.family).toEqual(kept);
    }
    // Turned on again (the key removed: the default), the next sign-in upgrades.
    const on = await call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId: off, coreConfig: { legacy_password_hash_upgrade_enabled: null } },
    });
    expect(on.status, on.text).toBe(200);
    await expectSignIn(off, 'off0@x.com', LEGACY[0].password);
    expect((await stored(off, 'off0@x.com')).hash).toMatch(/^\$2a\$04\$/);
  });

  it('validates the switch like any boolean key', async () => {
    const res = await call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId: 'upgrade-switch-bad', coreConfig: { legacy_password_hash_upgrade_enabled: 'yes' } },
    });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/legacy_password_hash_upgrade_enabled/);
  });

  it('upgrades a linked login method inside its primary user, at its own place in the list', async () => {
    const appId = await createApp({ account_linking_enabled: true });
    const c = LEGACY[2];
    const res = await importUser(appId, {
      externalUserId: 'linked-primary',
      loginMethods: [
        {
          recipeId: 'thirdparty',
          email: 'linked@x.com',
          thirdPartyId: 'google',
          thirdPartyUserId: 'g-1',
          isPrimary: true,
        },
        { recipeId: 'emailpassword', email: 'linked@x.com', passwordHash: c.hash, hashingAlgorithm: c.algorithm },
      ],
    });
    expect(res.status, res.text).toBe(200);
    const before = await stored(appId, 'linked@x.com');
    expect(before.user.loginMethods).toHaveLength(2);
    const signedIn = await expectSignIn(appId, 'linked@x.com', c.password);
    expect(signedIn.user.loginMethods).toHaveLength(2);
    const after = await stored(appId, 'linked@x.com');
    expect(after.user.userId).toBe(before.user.userId);
    expect(after.hash).toMatch(/^\$2a\$04\$/);
    expect(after.user.loginMethods.find((lm) => lm.recipeId === 'thirdparty')).toEqual(
      before.user.loginMethods.find((lm) => lm.recipeId === 'thirdparty'),
    );
    await expectSignIn(appId, 'linked@x.com', c.password);
  });
});

describe('bcrypt and Argon2 hashes below the app cost are upgraded at sign-in', () => {
  // The tests' base settings (users-support.ts): bcrypt_log_rounds 4, argon2 m = 1024, t = 1, p = 1.
  const argon2 = async (password: string, memorySize: number, iterations: number) => {
    const hash = await argon2id({
      password,
      salt: randomBytes(16),
      memorySize,
      iterations,
      parallelism: 1,
      hashLength: 32,
      outputType: 'encoded',
    });
    SECRETS.push(password, hash);
    return hash;
  };

  it('replaces an Argon2 hash whose memory × iterations is below the app setting, keeps one at or above it', async () => {
    const appId = await createApp();
    await importHash(appId, 'argon-low@x.com', await argon2('argon-low-pass', 512, 1), 'ARGON2');
    const atCost = await argon2('argon-at-pass', 1024, 1);
    await importHash(appId, 'argon-at@x.com', atCost, 'ARGON2');
    // Less memory but more passes: the same product, so the same cost.
    const traded = await argon2('argon-traded-pass', 512, 2);
    await importHash(appId, 'argon-traded@x.com', traded, 'ARGON2');

    const before = await stored(appId, 'argon-low@x.com');
    await expectSignIn(appId, 'argon-low@x.com', 'argon-low-pass');
    const after = await stored(appId, 'argon-low@x.com');
    // The app's algorithm (BCRYPT) at its cost, the hash a sign-up writes.
    expect(after.hash).toMatch(/^\$2a\$04\$[./A-Za-z0-9]{53}$/);
    expect(after.user.version).toBe(before.user.version + 1);
    await expectSignIn(appId, 'argon-low@x.com', 'argon-low-pass');
    await expectSignIn(appId, 'argon-low@x.com', 'wrong', 'WRONG_CREDENTIALS_ERROR');

    await expectSignIn(appId, 'argon-at@x.com', 'argon-at-pass');
    expect((await stored(appId, 'argon-at@x.com')).hash).toBe(atCost);
    await expectSignIn(appId, 'argon-traded@x.com', 'argon-traded-pass');
    expect((await stored(appId, 'argon-traded@x.com')).hash).toBe(traded);
  });

  it('replaces a bcrypt hash below bcrypt_log_rounds, with the same conditional write as the legacy upgrade', async () => {
    const appId = await createApp();
    const low = secretBcrypt('bcrypt-low-pass');
    await importHash(appId, 'bcrypt-low@x.com', low, 'BCRYPT');
    // An app whose bcrypt_log_rounds is 5 (a base-only key: the use case with such a configuration).
    const base = { ...(await getBaseConfig()), bcrypt_log_rounds: 5 };
    const { app } = await loadRequestTenants(appId, 'public');
    const config = resolveEffectiveConfig(base, app?.coreConfig, undefined, appId);
    const target = { appId, tenantId: 'public' };
    const credentials = { email: 'bcrypt-low@x.com', password: 'bcrypt-low-pass' };
    const before = await stored(appId, 'bcrypt-low@x.com');
    expect((await signInUseCase(usersDeps(config), passwordPorts(config), target, credentials)).status).toBe('OK');
    const after = await stored(appId, 'bcrypt-low@x.com');
    expect(after.hash).toMatch(/^\$2a\$05\$[./A-Za-z0-9]{53}$/);
    expect(after.user.version).toBe(before.user.version + 1);
    // At the app cost now: the next sign-in keeps it.
    expect((await signInUseCase(usersDeps(config), passwordPorts(config), target, credentials)).status).toBe('OK');
    expect((await stored(appId, 'bcrypt-low@x.com')).hash).toBe(after.hash);
    // With the app's own settings (cost 4) the same hash was never below the cost.
    await expectSignIn(appId, 'bcrypt-low@x.com', 'bcrypt-low-pass');
    expect((await stored(appId, 'bcrypt-low@x.com')).hash).toBe(after.hash);
  });

  it('keeps them when the app switch is off, and keeps Firebase scrypt hashes always', async () => {
    const off = await createApp({ legacy_password_hash_upgrade_enabled: false });
    const low = await argon2('argon-off-pass', 256, 1);
    await importHash(off, 'argon-off@x.com', low, 'ARGON2');
    await expectSignIn(off, 'argon-off@x.com', 'argon-off-pass');
    expect((await stored(off, 'argon-off@x.com')).hash).toBe(low);

    // Firebase's published example: signer key, hash and password.
    const signerKey = 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==';
    const firebaseHash =
      '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==';
    SECRETS.push(signerKey, firebaseHash, 'user1password');
    const firebase = await createApp({ firebase_password_hashing_signer_key: signerKey });
    await importHash(firebase, 'fb@x.com', firebaseHash, 'FIREBASE_SCRYPT');
    await expectSignIn(firebase, 'fb@x.com', 'user1password');
    expect((await stored(firebase, 'fb@x.com')).hash).toBe(firebaseHash);
  });
});

describe('the upgrade never overwrites a concurrent change and never fails the sign-in', () => {
  it('a password changed between the verify and the write is kept: the upgrade does not apply', async () => {
    const appId = await createApp();
    const c = LEGACY[0];
    await importHash(appId, 'race@x.com', c.hash, c.algorithm);
    const changedHash = secretBcrypt('changed-password-1');

    const result = await signInWith(appId, 'race@x.com', c.password, async () => {
      // Another actor changes the password while this sign-in hashes the new one.
      const current = await stored(appId, 'race@x.com');
      expect(await users.replacePasswordHash(appId, current.user, current.recipeUserId, changedHash)).toBe(true);
    });
    expect(result.status).toBe('OK');
    expect((await stored(appId, 'race@x.com')).hash).toBe(changedHash);
    await expectSignIn(appId, 'race@x.com', c.password, 'WRONG_CREDENTIALS_ERROR');
    await expectSignIn(appId, 'race@x.com', 'changed-password-1');
  });

  it('of two sign-ins racing, one upgrade applies and the password works', async () => {
    const appId = await createApp();
    const c = LEGACY[3];
    await importHash(appId, 'twice@x.com', c.hash, c.algorithm);
    const before = await stored(appId, 'twice@x.com');
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let waiting = 0;
    // Both verify the legacy hash before either writes.
    const both = [0, 1].map(() =>
      signInWith(appId, 'twice@x.com', c.password, async () => {
        waiting += 1;
        if (waiting === 2) release();
        await gate;
      }),
    );
    expect((await Promise.all(both)).map((r) => r.status)).toEqual(['OK', 'OK']);
    const after = await stored(appId, 'twice@x.com');
    expect(after.hash).toMatch(/^\$2a\$04\$/);
    // One conditional write applied; the other found the hash changed and wrote nothing.
    expect(after.user.version).toBe(before.user.version + 1);
    await expectSignIn(appId, 'twice@x.com', c.password);
  });

  it('writes only the hash: a user id mapping created meanwhile is kept', async () => {
    const appId = await createApp();
    const c = LEGACY[4];
    await importHash(appId, 'mapped@x.com', c.hash, c.algorithm);
    const { user } = await stored(appId, 'mapped@x.com');
    const result = await signInWith(appId, 'mapped@x.com', c.password, async () => {
      const map = await call('POST', `/appid-${appId}/recipe/userid/map`, {
        body: { superTokensUserId: user.userId, externalUserId: 'ext-mapped-1' },
      });
      expect(map.json, map.text).toEqual({ status: 'OK' });
    });
    expect(result.status).toBe('OK');
    const after = await stored(appId, 'mapped@x.com');
    expect(after.hash).toMatch(/^\$2a\$04\$/);
    expect(after.user.externalIds).toEqual({ [user.userId]: { externalUserId: 'ext-mapped-1' } });
    const mapping = await call('GET', `/appid-${appId}/recipe/userid/map?userId=ext-mapped-1`);
    expect(mapping.json).toMatchObject({ status: 'OK', superTokensUserId: user.userId });
    // A rewrite planned from the read before the upgrade fails its version guard instead of restoring the old hash.
    const stale: UserRecord = { ...user, version: user.version + 1 };
    const write = users.newWrite(appId);
    write.add({ changes: [{ before: stale, after: { ...stale, version: stale.version + 1 } }] });
    expect((await users.commit(write)).ok).toBe(false);
    expect((await stored(appId, 'mapped@x.com')).hash).toBe(after.hash);
  });

  it('a failed upgrade answers the sign-in as usual, keeps the legacy hash and logs a warning without credentials', async () => {
    const appId = await createApp();
    const c = LEGACY[1];
    await importHash(appId, 'fails@x.com', c.hash, c.algorithm);
    const before = await stored(appId, 'fails@x.com');
    const { config } = await loadRequestTenants(appId, 'public');
    const failing: PasswordPorts = {
      ...passwordPorts(config),
      hash: async () => {
        throw new Error(`hashing failed for ${c.password} ${c.hash}`);
      },
    };
    const linesBefore = logs.lines.length;
    const result = await signInUseCase(
      usersDeps(config),
      failing,
      { appId, tenantId: 'public' },
      { email: 'fails@x.com', password: c.password },
    );
    expect(result.status).toBe('OK');
    expect(await stored(appId, 'fails@x.com')).toEqual(before);
    const warnings = logs.lines.slice(linesBefore).map((l) => JSON.parse(l));
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'sign-in succeeded but its legacy password hash could not be upgraded; it is kept as it was',
        appId,
        tenantId: 'public',
        recipeUserId: before.recipeUserId,
        reason: 'Error',
      }),
    ]);
    // The next sign-in with working hashing upgrades it.
    await expectSignIn(appId, 'fails@x.com', c.password);
    expect((await stored(appId, 'fails@x.com')).hash).toMatch(/^\$2a\$04\$/);
  });
});
