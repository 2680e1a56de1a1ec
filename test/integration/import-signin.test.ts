import bcrypt from 'bcryptjs';
import { argon2i, argon2id } from 'hash-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { call, captureLogs, createApp, expectNoSecrets, importUser, signIn } from './users-support.js';

const logs = captureLogs();
const SECRETS: string[] = [];
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, SECRETS);
});

const FIREBASE = {
  signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
  password: 'user1password',
  stored:
    '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==',
};
SECRETS.push(FIREBASE.signerKey, FIREBASE.password, FIREBASE.stored);

async function argon(kind: 'id' | 'i', password: string): Promise<string> {
  const fn = kind === 'id' ? argon2id : argon2i;
  return fn({
    password,
    salt: 'somesaltsomesalt',
    parallelism: 1,
    iterations: 2,
    memorySize: 512,
    hashLength: 32,
    outputType: 'encoded',
  });
}

async function importWithHash(appId: string, email: string, passwordHash: string, hashingAlgorithm: string) {
  const res = await importUser(appId, {
    loginMethods: [{ recipeId: 'emailpassword', email, passwordHash, hashingAlgorithm }],
  });
  expect(res.status, res.text).toBe(200);
  return res.json.user;
}

describe('sign-in of imported users', () => {
  it('works for bcrypt $2a/$2b/$2y, argon2id, argon2i and plain-text imports; wrong passwords are refused', async () => {
    const appId = await createApp();
    const bcryptHash = bcrypt.hashSync('bcrypt-pass-1', 4);
    const variants = ['$2a$', '$2b$', '$2y$'].map((prefix) => prefix + bcryptHash.slice(4));
    const argonId = await argon('id', 'argon-id-pass-1');
    const argonI = await argon('i', 'argon-i-pass-1');
    SECRETS.push('bcrypt-pass-1', 'argon-id-pass-1', 'argon-i-pass-1', 'plain-pass-1', argonId, argonI, ...variants);

    const cases: { email: string; password: string }[] = [];
    for (const [i, hash] of variants.entries()) {
      await importWithHash(appId, `bcrypt${i}@x.com`, hash, 'BCRYPT');
      cases.push({ email: `bcrypt${i}@x.com`, password: 'bcrypt-pass-1' });
    }
    await importWithHash(appId, 'argonid@x.com', argonId, 'argon2');
    cases.push({ email: 'argonid@x.com', password: 'argon-id-pass-1' });
    await importWithHash(appId, 'argoni@x.com', argonI, 'ARGON2');
    cases.push({ email: 'argoni@x.com', password: 'argon-i-pass-1' });
    const plain = await importUser(appId, {
      loginMethods: [
        { recipeId: 'emailpassword', email: 'plain@x.com', plainTextPassword: 'plain-pass-1', isVerified: true },
      ],
    });
    expect(plain.status, plain.text).toBe(200);
    cases.push({ email: 'plain@x.com', password: 'plain-pass-1' });

    for (const { email, password } of cases) {
      const ok = await signIn(appId, `  ${email.toUpperCase()} `, password);
      expect(ok.status).toBe(200);
      expect(ok.json.status, email).toBe('OK');
      expect(ok.json.user.emails).toEqual([email]);
      expect(ok.json.user.loginMethods.map((lm: any) => lm.recipeUserId)).toContain(ok.json.recipeUserId);
      expect(JSON.stringify(ok.json)).not.toMatch(/\$2[aby]\$|argon2|passwordHash/);
      const wrong = await signIn(appId, email, `${password}-wrong`);
      expect(wrong.json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    }
    expect((await signIn(appId, 'nobody@x.com', 'x')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    // Another tenant does not see the user.
    await call('PUT', `/appid-${appId}/recipe/multitenancy/tenant/v2`, { body: { tenantId: 't9' } });
    expect((await signIn(appId, 'plain@x.com', 'plain-pass-1', 't9')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
  });

  it('works for a Firebase scrypt hash when the app has the signer key', async () => {
    const appId = await createApp({ firebase_password_hashing_signer_key: FIREBASE.signerKey });
    await importWithHash(appId, 'firebase@x.com', FIREBASE.stored, 'firebase_scrypt');
    expect((await signIn(appId, 'firebase@x.com', FIREBASE.password)).json.status).toBe('OK');
    expect((await signIn(appId, 'firebase@x.com', 'not-it')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
  });

  it('answers WRONG_CREDENTIALS_ERROR (and logs a warning) for a Firebase hash without a signer key', async () => {
    const withKey = await createApp({ firebase_password_hashing_signer_key: FIREBASE.signerKey });
    await importWithHash(withKey, 'fb2@x.com', FIREBASE.stored, 'FIREBASE_SCRYPT');
    // The key is removed after the import (e.g. a misconfiguration): sign-in must not crash.
    const removed = await call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId: withKey, coreConfig: { firebase_password_hashing_signer_key: null } },
    });
    expect(removed.status, removed.text).toBe(200);
    const res = await signIn(withKey, 'fb2@x.com', FIREBASE.password);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(logs.lines.some((l) => l.includes('"level":"warn"') && l.includes('cannot be checked'))).toBe(true);
  });

  it('signs up with the app hashing algorithm, then signs in; a second sign-up is EMAIL_ALREADY_EXISTS_ERROR', async () => {
    const appId = await createApp({ password_hashing_alg: 'ARGON2' });
    SECRETS.push('signup-pass-1');
    const up = await call('POST', `/appid-${appId}/public/recipe/signup`, {
      body: { email: ' New@X.com', password: 'signup-pass-1' },
    });
    expect(up.json.status).toBe('OK');
    expect(up.json.user.emails).toEqual(['new@x.com']);
    expect(up.json.recipeUserId).toBe(up.json.user.id);
    const again = await call('POST', `/appid-${appId}/public/recipe/signup`, {
      body: { email: 'new@x.com', password: 'other' },
    });
    expect(again.json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await signIn(appId, 'new@x.com', 'signup-pass-1')).json.status).toBe('OK');
    const missing = await call('POST', `/appid-${appId}/public/recipe/signin`, { body: { email: 'a@b.com' } });
    expect(missing.status).toBe(400);
    expect(missing.text).toBe("Field name 'password' is invalid in JSON input");
  });
});
