import { createHmac, pbkdf2Sync, scryptSync } from 'node:crypto';
import bcryptjs from 'bcryptjs';
import fc from 'fast-check';
import { argon2id } from 'hash-wasm';
import { describe, expect, it } from 'vitest';
import { normaliseImportedHash, verifyPassword } from '#functions/domain/passwords/index.js';
import type { WireLoginMethod } from '../../bin/auth-core/src/contract.js';
import { convertClerk } from '../../bin/auth-core/src/sources/clerk.js';
import type { Conversion } from '../../bin/auth-core/src/sources/conversion.js';
import { convertDjango } from '../../bin/auth-core/src/sources/django.js';
import { clerkHash, djangoHash, wordpressHash } from '../../bin/auth-core/src/sources/hashes.js';
import { convertKeycloak, keycloakPasswordHash } from '../../bin/auth-core/src/sources/keycloak.js';
import { convertWordpress } from '../../bin/auth-core/src/sources/wordpress.js';
import { keycloakArgon2, keycloakPbkdf2 } from '../fixtures/migrate/legacy-exports.js';

/**
 * The Keycloak, Django and WordPress converters and Clerk's other hashers. Every converted hash is
 * handed to the core's own import check and verify: the command's output must be a hash the core
 * accepts and that verifies with the user's password (and not with another). Hashes are published
 * vectors (source named) or computed here the way the source system computes them (said how).
 */

const base = { tenantId: 'public', providerMap: new Map<string, string>() };
const keycloak = { ...base, withRoles: false };
const SALT = Buffer.from('0123456789abcdef');
const b64 = (bytes: Buffer) => bytes.toString('base64');

async function expectCoreVerifies(
  hash: { passwordHash?: string | undefined; hashingAlgorithm?: string | undefined },
  password: string,
) {
  const imported = normaliseImportedHash(hash.hashingAlgorithm as never, hash.passwordHash ?? '');
  if (!imported.ok) throw new Error(`the core refuses the converted hash: ${imported.error}`);
  const options = { firebaseSignerKey: undefined };
  expect(await verifyPassword(password, imported.storedHash, options)).toEqual({ ok: true });
  expect(await verifyPassword(`${password}!`, imported.storedHash, options)).toEqual({
    ok: false,
    reason: 'WRONG_PASSWORD',
  });
}

function methodOf(result: Conversion, recipeId = 'emailpassword'): WireLoginMethod {
  if (!result.ok) throw new Error(`refused: ${result.reasons.join('; ')}`);
  const method = result.user.loginMethods.find((m) => m.recipeId === recipeId);
  if (!method) throw new Error(`no ${recipeId} method`);
  return method;
}

const reasonsOf = (result: Conversion) => (result.ok ? [] : result.reasons);

// ------------------------------------------------------------------------------------------------
// Keycloak

const keycloakUser = (extra: Record<string, unknown> = {}) => ({
  id: 'dbfcd8d1-f119-4c89-9409-544382abb11b',
  createdTimestamp: 1693669853579,
  username: 'ada',
  enabled: true,
  totp: false,
  emailVerified: true,
  email: 'Ada@Example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  attributes: { locale: ['en'] },
  disableableCredentialTypes: [],
  requiredActions: [],
  realmRoles: ['default-roles-shop', 'offline_access', 'uma_authorization', 'admin', 'buyer'],
  notBefore: 0,
  groups: ['/staff'],
  ...extra,
});

describe('keycloak', () => {
  it.each<[string, string, number]>([
    ['pbkdf2-sha256', 'sha256', 27500],
    ['pbkdf2-sha512', 'sha512', 30000],
    ['pbkdf2', 'sha1', 20000],
  ])('converts %s credentials to a PBKDF2 hash the core verifies', async (algorithm, digest, iterations) => {
    const password = `kc-${algorithm}-pässword`;
    const hash = keycloakPasswordHash(keycloakPbkdf2(algorithm, digest, password, iterations));
    expect(hash).toMatchObject({ ok: true, hashingAlgorithm: 'PBKDF2' });
    if (!hash.ok) return;
    expect(hash.passwordHash.startsWith(`$pbkdf2-${digest}$i=${iterations},l=64$`)).toBe(true);
    await expectCoreVerifies(hash, password);
  });

  it('converts argon2 credentials to the PHC string', async () => {
    const hash = keycloakPasswordHash(await keycloakArgon2('kc-argon2-password'));
    expect(hash).toMatchObject({ ok: true, hashingAlgorithm: 'ARGON2' });
    if (hash.ok) expect(hash.passwordHash.startsWith('$argon2id$v=19$m=7168,t=5,p=1$')).toBe(true);
    await expectCoreVerifies(hash as { passwordHash: string; hashingAlgorithm: string }, 'kc-argon2-password');
  });

  it('reads the credential of exports before Keycloak 7 (values on the credential itself)', async () => {
    const key = pbkdf2Sync('old-kc-password', SALT, 1000, 64, 'sha256');
    const hash = keycloakPasswordHash({
      type: 'password',
      hashedSaltedValue: b64(key),
      salt: b64(SALT),
      hashIterations: 1000,
      algorithm: 'pbkdf2-sha256',
    });
    await expectCoreVerifies(hash as { passwordHash: string; hashingAlgorithm: string }, 'old-kc-password');
  });

  it('maps a user: email, verification, time, identities, metadata; roles only with --with-roles, built-ins left out', () => {
    const credential = keycloakPbkdf2('pbkdf2-sha256', 'sha256', 'pw-1', 1000);
    const record = keycloakUser({
      credentials: [credential],
      federatedIdentities: [{ identityProvider: 'google', userId: '1234567890', userName: 'ada@example.com' }],
    });
    const result = convertKeycloak(record, { ...keycloak, providerMap: new Map([['google', 'google-workspace']]) });
    expect(result).toEqual({
      ok: true,
      sourceId: 'dbfcd8d1-f119-4c89-9409-544382abb11b',
      factorsLeftBehind: [],
      user: {
        externalUserId: 'dbfcd8d1-f119-4c89-9409-544382abb11b',
        userMetadata: {
          username: 'ada',
          firstName: 'Ada',
          lastName: 'Lovelace',
          attributes: { locale: ['en'] },
          groups: ['/staff'],
        },
        loginMethods: [
          {
            recipeId: 'emailpassword',
            isVerified: true,
            isPrimary: true,
            timeJoinedInMSSinceEpoch: 1693669853579,
            email: 'ada@example.com',
            passwordHash: (keycloakPasswordHash(credential) as { passwordHash: string }).passwordHash,
            hashingAlgorithm: 'PBKDF2',
          },
          {
            recipeId: 'thirdparty',
            isVerified: true,
            timeJoinedInMSSinceEpoch: 1693669853579,
            email: 'ada@example.com',
            thirdPartyId: 'google-workspace',
            thirdPartyUserId: '1234567890',
          },
        ],
      },
    });
    const withRoles = convertKeycloak(record, { ...keycloak, tenantId: 'eu', withRoles: true });
    expect(withRoles.ok && withRoles.user.userRoles).toEqual([
      { role: 'admin', tenantIds: ['eu'] },
      { role: 'buyer', tenantIds: ['eu'] },
    ]);
    expect(withRoles.ok && withRoles.user.loginMethods.map((m) => m.tenantIds)).toEqual([['eu'], ['eu']]);
  });

  it('a disabled user keeps the flag in its metadata; a social-only user has only its third-party login', () => {
    const disabled = convertKeycloak(
      keycloakUser({ enabled: false, credentials: [keycloakPbkdf2('pbkdf2', 'sha1', 'x-pw', 1000)] }),
      keycloak,
    );
    expect(disabled.ok && disabled.user.userMetadata?.disabled).toBe(true);
    const social = convertKeycloak(
      keycloakUser({ credentials: [], federatedIdentities: [{ identityProvider: 'github', userId: '42' }] }),
      keycloak,
    );
    expect(social.ok && social.user.loginMethods.map((m) => [m.recipeId, m.thirdPartyId])).toEqual([
      ['thirdparty', 'github'],
    ]);
  });

  it('reports what it cannot convert, without quoting a hash', async () => {
    const argon10 = await keycloakArgon2('pw', '1.0');
    const cases: [Record<string, unknown>, string][] = [
      [{ credentials: [argon10] }, 'Argon2 version 1.0 is not supported (only 1.3)'],
      [
        {
          credentials: [
            {
              type: 'password',
              secretData: '{"value":"AAAA","salt":"AAAA"}',
              credentialData: '{"hashIterations":1,"algorithm":"md5-crypt"}',
            },
          ],
        },
        'password algorithm md5-crypt is not one the core reads (pbkdf2, pbkdf2-sha256, pbkdf2-sha512, argon2)',
      ],
      [
        { credentials: [{ type: 'password', secretData: 'not json', credentialData: '{}' }] },
        'the password credential has no value or algorithm',
      ],
      [
        { email: undefined, credentials: [keycloakPbkdf2('pbkdf2', 'sha1', 'pw', 1000)] },
        'the user has a password but no email address',
      ],
      [
        { credentials: [] },
        'the user has no password and no identity provider link; give --password-hook to import it pending the password-migration hook (the old system then checks its password at first sign-in)',
      ],
      [
        { credentials: [], federationLink: 'ldap-provider-id' },
        "the user's password is kept by a user federation provider (LDAP, Kerberos), not in the export; give --password-hook to import it pending the password-migration hook (the old system then checks its password at first sign-in)",
      ],
      [{ serviceAccountClientId: 'backend' }, 'the user is the service account of client backend'],
    ];
    for (const [extra, reason] of cases) {
      const result = convertKeycloak(keycloakUser(extra), keycloak);
      expect(reasonsOf(result)).toEqual([reason]);
    }
  });
});

// ------------------------------------------------------------------------------------------------
// Django

describe('django', () => {
  const dumped = (password: string, extra: Record<string, unknown> = {}) => ({
    model: 'auth.user',
    pk: 7,
    fields: {
      password,
      last_login: null,
      is_superuser: false,
      username: 'grace',
      first_name: 'Grace',
      last_name: '',
      email: 'Grace@Example.com',
      is_staff: true,
      is_active: true,
      date_joined: '2021-05-06T07:08:09.123456Z',
      groups: [],
      user_permissions: [],
      ...extra,
    },
  });

  it('maps a dumpdata record', () => {
    const result = convertDjango(
      dumped('pbkdf2_sha256$10000$kjVJaVz6qsnJ$5yPHw3rwJGECpUf70daLGhOrQ5+AMxIJdz1c3bqK1Rs='),
      base,
    );
    expect(result).toEqual({
      ok: true,
      sourceId: '7',
      factorsLeftBehind: [],
      user: {
        externalUserId: '7',
        userMetadata: { username: 'grace', first_name: 'Grace', is_staff: true },
        loginMethods: [
          {
            recipeId: 'emailpassword',
            timeJoinedInMSSinceEpoch: Date.parse('2021-05-06T07:08:09.123Z'),
            email: 'grace@example.com',
            passwordHash: 'pbkdf2_sha256$10000$kjVJaVz6qsnJ$5yPHw3rwJGECpUf70daLGhOrQ5+AMxIJdz1c3bqK1Rs=',
            hashingAlgorithm: 'PBKDF2',
          },
        ],
      },
    });
    const inactive = convertDjango(
      dumped('md5$3OpqnFAHW5CT$54b29300675271049a1ebae07b395e20', { is_active: false }),
      base,
    );
    expect(inactive.ok && inactive.user.userMetadata?.is_active).toBe(false);
  });

  it("converts each of Django's hashers the core verifies", async () => {
    const argon = await argon2id({
      password: 'dj-argon',
      salt: SALT,
      iterations: 2,
      memorySize: 1024,
      parallelism: 1,
      hashLength: 32,
      outputType: 'encoded',
    });
    // ScryptPasswordHasher: hashlib.scrypt(password, salt=salt.encode(), n, r, p, dklen=64), Base64 key.
    const scryptKey = scryptSync('dj-scrypt', 'saltsaltsalt1234', 64, { N: 2 ** 14, r: 8, p: 5 });
    const bcrypt = bcryptjs.hashSync('dj-bcrypt', 4);
    const vectors: [string, string, string][] = [
      // passlib's tests/test_handlers_django.py (generated with Django's hashers).
      ['pbkdf2_sha256$10000$kjVJaVz6qsnJ$5yPHw3rwJGECpUf70daLGhOrQ5+AMxIJdz1c3bqK1Rs=', 'not a password', 'PBKDF2'],
      ['pbkdf2_sha1$10000$wz5B6WkasRoF$atJmJ1o+XfJxKq1+Nu1f1i57Z5I=', 'not a password', 'PBKDF2'],
      ['sha1$bcwHF9Hy8lxS$6b4cfa0651b43161c6f1471ce9523acf1f751ba3', 'test', 'SHA1'],
      ['md5$3OpqnFAHW5CT$54b29300675271049a1ebae07b395e20', 'test', 'MD5'],
      // UnsaltedSHA1PasswordHasher writes `sha1$$<hex>`, UnsaltedMD5PasswordHasher the bare hex (passlib's hex vectors).
      ['sha1$$5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8', 'password', 'SHA1'],
      ['5f4dcc3b5aa765d61d8327deb882cf99', 'password', 'MD5'],
      // Argon2PasswordHasher and BCryptPasswordHasher: Django's name, then the library's hash.
      [`argon2${argon}`, 'dj-argon', 'ARGON2'],
      [`bcrypt$${bcrypt}`, 'dj-bcrypt', 'BCRYPT'],
      [`scrypt$16384$saltsaltsalt1234$8$5$${b64(scryptKey)}`, 'dj-scrypt', 'SCRYPT'],
    ];
    for (const [value, password, algorithm] of vectors) {
      const hash = djangoHash(value);
      expect(hash, value.slice(0, 14)).toMatchObject({ ok: true, hashingAlgorithm: algorithm });
      await expectCoreVerifies(hash as { passwordHash: string; hashingAlgorithm: string }, password);
    }
  });

  it('reports unusable passwords, hashers the core does not verify, non-user records', () => {
    expect(reasonsOf(convertDjango(dumped('!Yq3c1hK8'), base))).toEqual([
      'the user has no usable password (Django marks it with "!")',
    ]);
    expect(reasonsOf(convertDjango(dumped(`bcrypt_sha256$${bcryptjs.hashSync('x', 4)}`), base))).toEqual([
      "Django's bcrypt_sha256 (bcrypt of the password's SHA-256) is not a hash the core verifies",
    ]);
    expect(reasonsOf(convertDjango(dumped('scrypt$1000$salt$8$1$AAAA'), base))).toEqual([
      'scrypt N 1000 is not a power of two',
    ]);
    expect(reasonsOf(convertDjango(dumped('pbkdf2_sha256$10000$abc'), base))).toEqual([
      'the pbkdf2_sha256 password is malformed',
    ]);
    expect(reasonsOf(convertDjango(dumped('x', { email: '' }), base))).toEqual(['the user has no email address']);
    expect(reasonsOf(convertDjango({ model: 'auth.group', pk: 1, fields: { name: 'staff' } }, base))).toEqual([
      'the record is not a user (model auth.group)',
    ]);
  });
});

// ------------------------------------------------------------------------------------------------
// WordPress

describe('wordpress', () => {
  const row = (user_pass: string, extra: Record<string, string> = {}) => ({
    ID: '12',
    user_login: 'admin',
    user_pass,
    user_nicename: 'admin',
    user_email: 'Admin@Example.com',
    user_url: '',
    user_registered: '2019-04-05 06:07:08',
    user_activation_key: '',
    user_status: '0',
    display_name: 'Site Admin',
    ...extra,
  });

  it('maps a wp_users row', () => {
    expect(convertWordpress(row('$P$984478476IagS59wHZvyQMArzfx58u.'), base)).toEqual({
      ok: true,
      sourceId: '12',
      factorsLeftBehind: [],
      user: {
        externalUserId: '12',
        userMetadata: { user_login: 'admin', display_name: 'Site Admin' },
        loginMethods: [
          {
            recipeId: 'emailpassword',
            timeJoinedInMSSinceEpoch: Date.parse('2019-04-05T06:07:08Z'),
            email: 'admin@example.com',
            passwordHash: '$P$984478476IagS59wHZvyQMArzfx58u.',
            hashingAlgorithm: 'PHPASS',
          },
        ],
      },
    });
    const never = convertWordpress(
      row('5f4dcc3b5aa765d61d8327deb882cf99', { user_registered: '0000-00-00 00:00:00' }),
      base,
    );
    expect(methodOf(never).timeJoinedInMSSinceEpoch).toBeUndefined();
  });

  it('converts phpass, WordPress 6.8, bcrypt and the MD5 of WordPress before 2.5', async () => {
    // WordPress 6.8 (wp_hash_password): bcrypt of Base64(HMAC-SHA-384(password, 'wp-sha384')), here with node:crypto and bcryptjs.
    const wp68 = `$wp${bcryptjs.hashSync(createHmac('sha384', 'wp-sha384').update('wp-68-pass').digest('base64'), 4).replace(/^\$2b\$/, '$2y$')}`;
    const vectors: [string, string, string][] = [
      ['$P$984478476IagS59wHZvyQMArzfx58u.', 'hashcat', 'PHPASS'], // hashcat's example hash, mode 400
      ['$H$9PE8jEklgZhgLmZl5.HYJAzfGCQtzi1', '123456', 'PHPASS'], // passlib's phpass vectors
      [wp68, 'wp-68-pass', 'PHPASS'],
      [bcryptjs.hashSync('plugin-pass', 4).replace(/^\$2b\$/, '$2y$'), 'plugin-pass', 'BCRYPT'],
      ['5f4dcc3b5aa765d61d8327deb882cf99', 'password', 'MD5'], // passlib's hex_md5 vector
    ];
    for (const [value, password, algorithm] of vectors) {
      const hash = wordpressHash(value);
      expect(hash).toMatchObject({ ok: true, hashingAlgorithm: algorithm });
      await expectCoreVerifies(hash as { passwordHash: string; hashingAlgorithm: string }, password);
    }
  });

  it('reports rows without a usable password or email', () => {
    expect(reasonsOf(convertWordpress(row(''), base))).toEqual(['user_pass is empty']);
    expect(reasonsOf(convertWordpress(row('plaintext'), base))).toEqual([
      'user_pass is not a phpass, WordPress, bcrypt or MD5 hash',
    ]);
    expect(reasonsOf(convertWordpress(row('$P$984478476IagS59wHZvyQMArzfx58u.', { user_email: ' ' }), base))).toEqual([
      'the user has no email address',
    ]);
  });
});

// ------------------------------------------------------------------------------------------------
// Clerk's other hashers

describe("clerk's other hashers", () => {
  const hex = (bytes: Buffer) => bytes.toString('hex');

  it('converts every hasher whose digest Clerk documents and the core verifies', async () => {
    const pw = 'clerk-migrated-1';
    const key = (digest: string, salt: Buffer, iterations: number, length: number) =>
      pbkdf2Sync(pw, salt, iterations, length, digest);
    const textSalt = Buffer.from('NaCl-salt-text');
    // Werkzeug's generate_password_hash('…', 'scrypt:16384:8:1'): hashlib.scrypt of the password and the salt's text, hex key.
    const werkzeugKey = scryptSync(pw, 'wzSaltText123456', 64, { N: 16384, r: 8, p: 1 });
    const digests: [string, string][] = [
      ['md5', hex(Buffer.from('5f4dcc3b5aa765d61d8327deb882cf99', 'hex'))],
      ['sha256', '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8'],
      ['pbkdf2_sha256', `pbkdf2_sha256$1000$${b64(SALT)}$${b64(key('sha256', SALT, 1000, 32))}`],
      ['pbkdf2_sha256_django', 'pbkdf2_sha256$10000$kjVJaVz6qsnJ$5yPHw3rwJGECpUf70daLGhOrQ5+AMxIJdz1c3bqK1Rs='],
      ['pbkdf2_sha1', `pbkdf2_sha1$1000$${textSalt.toString()}$${hex(key('sha1', textSalt, 1000, 20))}`],
      ['pbkdf2_sha1', `pbkdf2_sha1$1000$${hex(SALT)}$${hex(key('sha1', SALT, 1000, 32))}$32`],
      ['pbkdf2_sha512', `pbkdf2_sha512$1000$${textSalt.toString()}$${hex(key('sha512', textSalt, 1000, 64))}`],
      ['pbkdf2_sha512_hex', `pbkdf2_sha512_hex$1000$${hex(SALT)}$${hex(key('sha512', SALT, 1000, 64))}`],
      ['phpass', '$P$984478476IagS59wHZvyQMArzfx58u.'],
      ['md5_phpass', '$H$9PE8jEklgZhgLmZl5.HYJAzfGCQtzi1'],
      ['ldap_ssha', '{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr'],
      ['scrypt_werkzeug', `scrypt:16384:8:1$wzSaltText123456$${hex(werkzeugKey)}`],
      ['scrypt_werkzeug', `$scrypt:16384:8:1$wzSaltText123456$${b64(werkzeugKey)}`],
    ];
    const passwords: Record<string, string> = {
      md5: 'password',
      sha256: 'password',
      pbkdf2_sha256_django: 'not a password',
      phpass: 'hashcat',
      md5_phpass: '123456',
      ldap_ssha: 'testing123',
    };
    for (const [hasher, digest] of digests) {
      const result = convertClerk(
        { id: 'user_x', primary_email_address: 'x@x.io', password_hasher: hasher, password_digest: digest },
        base,
      );
      await expectCoreVerifies(methodOf(result), passwords[hasher] ?? pw);
    }
  });

  it('reports the hashers it does not convert, naming why', () => {
    for (const hasher of [
      'scrypt_firebase',
      'bcrypt_sha256_django',
      'bcrypt_peppered',
      'hmac_sha256_utf16_b64',
      'sha512_symfony',
      'md5_salted',
      'sha256_salted',
      'awscognito',
    ]) {
      const hash = clerkHash(hasher, 'anything$at$all');
      expect(hash.ok, hasher).toBe(false);
      if (!hash.ok)
        expect(hash.reason, hasher).toMatch(
          /not a hash the core verifies|cannot be converted|--from firebase|not a password hash/,
        );
    }
  });

  it('never throws on hostile digests and never quotes one', () => {
    const hashers = [
      'bcrypt',
      'md5',
      'sha256',
      'pbkdf2_sha256',
      'pbkdf2_sha1',
      'pbkdf2_sha512',
      'pbkdf2_sha512_hex',
      'scrypt_werkzeug',
      'ldap_ssha',
      'phpass',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...hashers),
        fc.oneof(
          fc.string(),
          fc
            .array(fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-f]{0,40}$/)), { maxLength: 7 })
            .map((parts) => parts.join('$')),
        ),
        (hasher, digest) => {
          const hash = clerkHash(hasher, `${hasher}$${digest}`);
          if (!hash.ok && digest.length > 8) expect(hash.reason).not.toContain(digest);
        },
      ),
    );
    fc.assert(
      fc.property(fc.string(), (value) => {
        for (const hash of [djangoHash(value), wordpressHash(value)]) {
          if (!hash.ok && value.length > 8) expect(hash.reason).not.toContain(value);
        }
      }),
    );
  });
});
