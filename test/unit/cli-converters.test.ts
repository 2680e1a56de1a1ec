import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertAuth0 } from '../../bin/auth-core/src/sources/auth0.js';
import { auth0HashUserId } from '../../bin/auth-core/src/sources/auth0-hashes.js';
import { convertClerk } from '../../bin/auth-core/src/sources/clerk.js';
import { parseProviderMap, phoneNumberOf, timeMs } from '../../bin/auth-core/src/sources/common.js';
import { convertDjango } from '../../bin/auth-core/src/sources/django.js';
import {
  convertFirebase,
  firebaseCsvRowToRecord,
  firebaseStoredHash,
  parseFirebaseHashConfig,
} from '../../bin/auth-core/src/sources/firebase.js';
import { convertKeycloak } from '../../bin/auth-core/src/sources/keycloak.js';
import { convertSupabase, supabaseIdentity } from '../../bin/auth-core/src/sources/supabase.js';
import { convertSupertokens } from '../../bin/auth-core/src/sources/supertokens.js';
import { convertWordpress } from '../../bin/auth-core/src/sources/wordpress.js';

const BCRYPT = '$2b$04$abcdefghijklmnopqrstuuWmQ1bmx0Ls1IuPYF0GKL4y7hEK0bCq.';
const BCRYPT_2 = '$2a$10$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe';
const base = { tenantId: 'public', providerMap: new Map<string, string>() };
const hashes = new Map([
  ['auth0|5dea9f9c82dd7c0e76e4ec93', BCRYPT],
  ['auth0|euclid', BCRYPT_2],
]);
const auth0 = { ...base, hashFor: (id: string) => hashes.get(id), hashesGiven: true };
const HASH_CONFIG = { signerKey: 'c2lnbmVy', saltSeparator: 'Bw==', rounds: 8, memCost: 14 };
const firebase = { ...base, hashConfig: HASH_CONFIG };
const supabase = { ...base, identitiesOf: () => [] };

describe('auth0', () => {
  it('joins a database user with its hash by `auth0|<_id.$oid>` and maps every field', () => {
    const result = convertAuth0(
      {
        user_id: 'auth0|5dea9f9c82dd7c0e76e4ec93',
        email: ' Ada@Example.COM ',
        email_verified: true,
        created_at: '2019-12-06T18:36:12.412Z',
        identities: [
          {
            connection: 'Username-Password-Authentication',
            provider: 'auth0',
            user_id: '5dea9f9c82dd7c0e76e4ec93',
            isSocial: false,
          },
        ],
        user_metadata: { plan: 'gold' },
        app_metadata: { roles: ['admin'] },
      },
      auth0,
    );
    expect(result).toEqual({
      ok: true,
      sourceId: 'auth0|5dea9f9c82dd7c0e76e4ec93',
      factorsLeftBehind: [],
      user: {
        externalUserId: 'auth0|5dea9f9c82dd7c0e76e4ec93',
        loginMethods: [
          {
            recipeId: 'emailpassword',
            isVerified: true,
            timeJoinedInMSSinceEpoch: Date.parse('2019-12-06T18:36:12.412Z'),
            email: 'ada@example.com',
            passwordHash: BCRYPT,
            hashingAlgorithm: 'BCRYPT',
          },
        ],
        userMetadata: { user_metadata: { plan: 'gold' }, app_metadata: { roles: ['admin'] } },
      },
    });
  });

  it('uses alt_id for the hash export user id when it exists', () => {
    expect(auth0HashUserId({ _id: { $oid: '5dea9f9c82dd7c0e76e4ec93' }, alt_id: 'euclid' })).toBe('auth0|euclid');
    expect(auth0HashUserId({ _id: { $oid: '5dea9f9c82dd7c0e76e4ec93' } })).toBe('auth0|5dea9f9c82dd7c0e76e4ec93');
    expect(auth0HashUserId({ email: 'x@example.com' })).toBeUndefined();
  });

  it('links a database identity and social identities under one primary user, mapping provider names', () => {
    const result = convertAuth0(
      {
        user_id: 'auth0|euclid',
        email: 'e@example.com',
        email_verified: false,
        identities: [
          { provider: 'auth0', user_id: 'euclid', isSocial: false },
          { provider: 'google-oauth2', user_id: '1234', isSocial: true },
          { provider: 'github', user_id: 77, isSocial: true },
          { provider: 'windowslive', user_id: 'w1', isSocial: true },
        ],
      },
      { ...auth0, providerMap: parseProviderMap('windowslive=microsoft') },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.user.loginMethods.map((m) => [m.recipeId, m.isPrimary, m.thirdPartyId, m.thirdPartyUserId])).toEqual([
      ['emailpassword', true, undefined, undefined],
      ['thirdparty', undefined, 'google', '1234'],
      ['thirdparty', undefined, 'github', '77'],
      ['thirdparty', undefined, 'microsoft', 'w1'],
    ]);
  });

  it('maps email and sms passwordless connections; phone numbers in E.164', () => {
    const email = convertAuth0(
      { user_id: 'email|x', email: 'P@x.io', identities: [{ provider: 'email', user_id: 'x' }] },
      auth0,
    );
    expect(email.ok && email.user.loginMethods).toEqual([{ recipeId: 'passwordless', email: 'p@x.io' }]);
    const sms = convertAuth0(
      { user_id: 'sms|y', phone_number: '+1 (415) 555-0123', identities: [{ provider: 'sms', user_id: 'y' }] },
      auth0,
    );
    expect(sms.ok && sms.user.loginMethods).toEqual([{ recipeId: 'passwordless', phoneNumber: '+14155550123' }]);
  });

  it('reports a database user without a hash and no other identity, and one with a non-bcrypt hash', () => {
    expect(
      convertAuth0(
        { user_id: 'auth0|nohash', email: 'n@x.io', identities: [{ provider: 'auth0', user_id: 'nohash' }] },
        auth0,
      ),
    ).toEqual({
      ok: false,
      sourceId: 'auth0|nohash',
      reasons: [
        'database user auth0|nohash has no password hash in the hash export (--hashes) and no other identity; give --password-hook to import it pending the password-migration hook (the old system then checks its password at first sign-in)',
      ],
    });
    const noExport = convertAuth0(
      { user_id: 'auth0|nohash', email: 'n@x.io' },
      { ...auth0, hashesGiven: false, hashFor: () => undefined },
    );
    expect(noExport.ok === false && noExport.reasons[0]).toMatch(/give the password-hash export with --hashes/);
    // With another identity the user is imported with that one.
    const other = convertAuth0(
      {
        user_id: 'auth0|nohash',
        email: 'n@x.io',
        identities: [
          { provider: 'auth0', user_id: 'nohash' },
          { provider: 'google-oauth2', user_id: 'g', isSocial: true },
        ],
      },
      auth0,
    );
    expect(other.ok && other.user.loginMethods.map((m) => m.recipeId)).toEqual(['thirdparty']);
    const md5 = convertAuth0(
      { user_id: 'auth0|euclid', email: 'e@x.io' },
      { ...auth0, hashFor: () => '5f4dcc3b5aa765d61d8327deb882cf99' },
    );
    expect(md5.ok === false && md5.reasons).toEqual([
      'database identity auth0|euclid has a password hash that is not bcrypt',
    ]);
  });

  it('reports odd records instead of throwing', () => {
    expect(convertAuth0('text', auth0)).toEqual({
      ok: false,
      sourceId: undefined,
      reasons: ['the line is not a JSON object'],
    });
    expect(convertAuth0({ email: 'x@y.z' }, auth0)).toMatchObject({ ok: false, reasons: ['user_id is missing'] });
    expect(
      convertAuth0(
        { user_id: 'twitter|1', identities: [{ provider: 'twitter', user_id: '1', isSocial: true }] },
        auth0,
      ),
    ).toMatchObject({
      ok: false,
      reasons: ['third-party identity twitter|1 has no email (the core needs one for a third-party login)'],
    });
    expect(convertAuth0({ user_id: 'x', identities: 'no' }, auth0)).toMatchObject({
      ok: false,
      reasons: ['identities is not an array'],
    });
  });

  it('puts the users in a non-public tenant when asked', () => {
    const result = convertAuth0({ user_id: 'auth0|euclid', email: 'e@x.io' }, { ...auth0, tenantId: 'eu' });
    expect(result.ok && result.user.loginMethods[0]?.tenantIds).toEqual(['eu']);
  });
});

describe('firebase', () => {
  it('parses the console text block as pasted and JSON with the same keys', () => {
    const text =
      'hash_config {\n  algorithm: SCRYPT,\n  base64_signer_key: c2lnbmVy,\n  base64_salt_separator: Bw==,\n  rounds: 8,\n  mem_cost: 14,\n}';
    expect(parseFirebaseHashConfig(text)).toEqual(HASH_CONFIG);
    expect(
      parseFirebaseHashConfig(
        JSON.stringify({ base64_signer_key: 'c2lnbmVy', base64_salt_separator: 'Bw==', rounds: 8, mem_cost: 14 }),
      ),
    ).toEqual(HASH_CONFIG);
    expect(() => parseFirebaseHashConfig('rounds: 8')).toThrow('the hash config has no valid base64_signer_key');
    expect(() => parseFirebaseHashConfig('algorithm: BCRYPT, base64_signer_key: c2lnbmVy')).toThrow(
      /only Firebase's SCRYPT/,
    );
  });

  it('never quotes the signer key when a pasted block runs the keys together', () => {
    fc.assert(
      fc.property(fc.base64String({ minLength: 8, maxLength: 88 }), (key) => {
        const pasted = `hash_config { algorithm: SCRYPT base64_signer_key: ${key} base64_salt_separator: Bw== rounds: 8 }`;
        expect(() => parseFirebaseHashConfig(pasted)).toThrow(/only Firebase's SCRYPT/);
        let message = '';
        try {
          parseFirebaseHashConfig(pasted);
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message).not.toContain(key);
      }),
    );
  });

  it('maps a password user to FIREBASE_SCRYPT and providers, skipping password/phone entries', () => {
    const result = convertFirebase(
      {
        localId: 'uid1',
        email: 'Fran@Example.com',
        emailVerified: true,
        passwordHash: 'aGFzaA==',
        salt: 'c2FsdA==',
        displayName: 'Fran',
        createdAt: '1600000000000',
        phoneNumber: '+447700900123',
        customAttributes: '{"tier":"pro"}',
        disabled: true,
        providerUserInfo: [
          { providerId: 'password', rawId: 'fran@example.com' },
          { providerId: 'phone', rawId: '+447700900123' },
          { providerId: 'apple.com', rawId: 'a1', email: 'fran@privaterelay.appleid.com' },
        ],
      },
      firebase,
    );
    expect(result).toEqual({
      ok: true,
      sourceId: 'uid1',
      factorsLeftBehind: [],
      user: {
        externalUserId: 'uid1',
        loginMethods: [
          {
            recipeId: 'emailpassword',
            isVerified: true,
            isPrimary: true,
            timeJoinedInMSSinceEpoch: 1600000000000,
            email: 'fran@example.com',
            passwordHash: firebaseStoredHash('aGFzaA==', 'c2FsdA==', HASH_CONFIG),
            hashingAlgorithm: 'FIREBASE_SCRYPT',
          },
          {
            recipeId: 'thirdparty',
            timeJoinedInMSSinceEpoch: 1600000000000,
            email: 'fran@privaterelay.appleid.com',
            thirdPartyId: 'apple',
            thirdPartyUserId: 'a1',
          },
          { recipeId: 'passwordless', timeJoinedInMSSinceEpoch: 1600000000000, phoneNumber: '+447700900123' },
        ],
        userMetadata: { displayName: 'Fran', customAttributes: { tier: 'pro' }, disabled: true },
      },
    });
    expect(firebaseStoredHash('aGFzaA==', 'c2FsdA==', HASH_CONFIG)).toBe('$f_scrypt$aGFzaA==$c2FsdA==$m=14$r=8$s=Bw==');
  });

  it('reads the CSV columns in auth:export order', () => {
    const row = Array(28).fill('');
    Object.assign(row, {
      0: 'uid2',
      1: 'g@x.io',
      2: 'true',
      3: 'aGFzaA==',
      4: 'c2FsdA==',
      7: 'google-raw',
      8: 'g@gmail.com',
      19: 'gh-raw',
      23: '1500000000000',
      25: '+14155550123',
      26: 'false',
      27: '{"a":1}',
    });
    expect(firebaseCsvRowToRecord(row)).toMatchObject({
      localId: 'uid2',
      email: 'g@x.io',
      emailVerified: true,
      passwordHash: 'aGFzaA==',
      salt: 'c2FsdA==',
      providerUserInfo: [
        { providerId: 'google.com', rawId: 'google-raw', email: 'g@gmail.com' },
        { providerId: 'github.com', rawId: 'gh-raw', email: undefined },
      ],
      createdAt: '1500000000000',
      phoneNumber: '+14155550123',
      disabled: false,
      customAttributes: '{"a":1}',
    });
  });

  it('reports anonymous users, hashes without salt and passwords without email', () => {
    expect(convertFirebase({ localId: 'anon' }, firebase)).toMatchObject({
      ok: false,
      reasons: [expect.stringMatching(/anonymous/)],
    });
    expect(convertFirebase({ localId: 'x', email: 'x@y.z', passwordHash: 'aGFzaA==' }, firebase)).toMatchObject({
      ok: false,
      reasons: ['passwordHash has no salt'],
    });
    expect(convertFirebase({ localId: 'x', passwordHash: 'aGFzaA==', salt: 'c2FsdA==' }, firebase)).toMatchObject({
      ok: false,
      reasons: ['the user has a password but no email'],
    });
  });
});

describe('supabase', () => {
  it('maps a CSV row (NULL as empty, booleans t/f, phone without +) and its identities', () => {
    const identity = supabaseIdentity({
      provider_id: 'gh1',
      user_id: 'u1',
      identity_data: '{"sub":"gh1","email":"S@x.io"}',
      provider: 'github',
    });
    expect(
      supabaseIdentity({ provider_id: 'u1', user_id: 'u1', identity_data: '{}', provider: 'email' }),
    ).toBeUndefined();
    const result = convertSupabase(
      {
        id: 'u1',
        email: 'S@x.io',
        encrypted_password: BCRYPT,
        email_confirmed_at: '2024-06-29 20:25:06.126079+00',
        phone: '15551230001',
        created_at: '2024-06-29 20:25:06.126079+00',
        raw_user_meta_data: '{"full_name":"Sam"}',
        raw_app_meta_data: '{"provider":"email"}',
        is_anonymous: 'f',
        deleted_at: '',
      },
      { ...supabase, identitiesOf: (id) => (id === 'u1' && identity ? [identity.identity] : []) },
    );
    const time = Date.parse('2024-06-29T20:25:06.126Z');
    expect(result).toEqual({
      ok: true,
      sourceId: 'u1',
      factorsLeftBehind: [],
      user: {
        externalUserId: 'u1',
        loginMethods: [
          {
            recipeId: 'emailpassword',
            isVerified: true,
            isPrimary: true,
            timeJoinedInMSSinceEpoch: time,
            email: 's@x.io',
            passwordHash: BCRYPT,
            hashingAlgorithm: 'BCRYPT',
          },
          {
            recipeId: 'thirdparty',
            isVerified: true,
            timeJoinedInMSSinceEpoch: time,
            email: 's@x.io',
            thirdPartyId: 'github',
            thirdPartyUserId: 'gh1',
          },
          { recipeId: 'passwordless', timeJoinedInMSSinceEpoch: time, phoneNumber: '+15551230001' },
        ],
        userMetadata: { user_metadata: { full_name: 'Sam' }, app_metadata: { provider: 'email' } },
      },
    });
  });

  it('maps an email user without password to passwordless; reports anonymous and deleted users', () => {
    const magic = convertSupabase(
      { id: 'u2', email: 'm@x.io', encrypted_password: '', email_confirmed_at: '' },
      supabase,
    );
    expect(magic.ok && magic.user.loginMethods).toEqual([{ recipeId: 'passwordless', email: 'm@x.io' }]);
    expect(convertSupabase({ id: 'u3', is_anonymous: 't' }, supabase)).toMatchObject({
      ok: false,
      reasons: ['the user is anonymous (no email, phone or identity)'],
    });
    expect(
      convertSupabase({ id: 'u4', email: 'd@x.io', deleted_at: '2024-01-01 00:00:00+00' }, supabase),
    ).toMatchObject({ ok: false });
  });
});

describe('clerk', () => {
  it('maps bcrypt and argon2 digests, TOTP secrets, phones and the other addresses', () => {
    const result = convertClerk(
      {
        id: 'user_1',
        first_name: 'Cleo',
        last_name: '',
        username: 'cleo',
        primary_email_address: 'Cleo@x.io',
        primary_phone_number: '+14155550123',
        verified_email_addresses: 'cleo@x.io|work@x.io',
        unverified_email_addresses: '',
        verified_phone_numbers: '+14155550123',
        unverified_phone_numbers: '',
        totp_secret: 'JBSWY3DPEHPK3PXP',
        password_digest: BCRYPT,
        password_hasher: 'bcrypt',
      },
      base,
    );
    expect(result).toEqual({
      ok: true,
      sourceId: 'user_1',
      factorsLeftBehind: [],
      user: {
        externalUserId: 'user_1',
        userMetadata: { first_name: 'Cleo', username: 'cleo', other_email_addresses: ['work@x.io'] },
        totpDevices: [{ secretKey: 'JBSWY3DPEHPK3PXP', period: 30, skew: 1, deviceName: 'clerk' }],
        loginMethods: [
          {
            recipeId: 'emailpassword',
            isVerified: true,
            isPrimary: true,
            email: 'cleo@x.io',
            passwordHash: BCRYPT,
            hashingAlgorithm: 'BCRYPT',
          },
          { recipeId: 'passwordless', phoneNumber: '+14155550123' },
        ],
      },
    });
    const argon = convertClerk(
      {
        id: 'u',
        primary_email_address: 'a@x.io',
        password_digest: '$argon2id$v=19$m=1024,t=2,p=1$c2FsdA$aGFzaA',
        password_hasher: 'argon2id',
      },
      base,
    );
    expect(argon.ok && argon.user.loginMethods[0]?.hashingAlgorithm).toBe('ARGON2');
  });

  it('reports digests of hashers the core does not verify, and malformed digests', () => {
    const reasons = (password_hasher: string, password_digest: string) => {
      const result = convertClerk({ id: 'u', primary_email_address: 'a@x.io', password_digest, password_hasher }, base);
      return result.ok ? [] : result.reasons;
    };
    expect(reasons('bcrypt_sha256_django', `bcrypt_sha256$${BCRYPT}`)).toEqual([
      "bcrypt_sha256_django (bcrypt of the password's SHA-256) is not a hash the core verifies",
    ]);
    expect(reasons('pbkdf2_sha256', 'abc')).toEqual(['password_digest is not in pbkdf2_sha256 format']);
    expect(reasons('rot13', 'abc')).toEqual(["password_hasher rot13 is not one of Clerk's documented hashers"]);
    expect(reasons('', 'abc')).toEqual(['password_hasher is empty']);
  });

  it('never quotes a digest found in the hasher column (columns swapped)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\$2[aby]\$1[0-2]\$[./A-Za-z0-9]{53}$/), (digest) => {
        const result = convertClerk(
          { id: 'u', primary_email_address: 'a@x.io', password_digest: 'bcrypt', password_hasher: digest },
          base,
        );
        expect(result.ok).toBe(false);
        const reasons = result.ok ? [] : result.reasons;
        expect(reasons).toEqual(["password_hasher is not one of Clerk's documented hashers"]);
        expect(reasons.join(' ')).not.toContain(digest.slice(7, 29));
      }),
    );
  });
});

describe('common fields', () => {
  it('reads timestamps in the shapes providers write', () => {
    expect(timeMs('2024-06-29 20:25:06.126079+00')).toBe(Date.parse('2024-06-29T20:25:06.126Z'));
    expect(timeMs('2024-06-29 20:25:06+05:30')).toBe(Date.parse('2024-06-29T20:25:06+05:30'));
    expect(timeMs('1600000000000')).toBe(1600000000000);
    expect(timeMs({ $date: '2019-12-06T18:36:12.412Z' })).toBe(Date.parse('2019-12-06T18:36:12.412Z'));
    expect(timeMs('yesterday')).toBeUndefined();
    expect(timeMs(-5)).toBeUndefined();
  });

  it('normalises phone numbers to E.164 and refuses what is not one', () => {
    expect(phoneNumberOf('+91-9999999999')).toBe('+919999999999');
    expect(phoneNumberOf('447700900123', true)).toBe('+447700900123');
    expect(phoneNumberOf('12')).toBeUndefined();
    // The core's rule (functions/contract/phone-numbers.ts): E.164 whenever it parses, possible or not.
    expect(phoneNumberOf('+1 (555) 0100')).toBe('+15550100');
    expect(phoneNumberOf('+1 999 000 45671234567')).toBe('+199900045671234567');
  });

  it('a refused phone number is quoted masked but for its last two digits (the record is named by its id)', () => {
    // 18 digits after the country code: too long to parse as a phone number anywhere.
    const bad = '+1 999 000 456712345678';
    expect(convertFirebase({ localId: 'f1', phoneNumber: bad }, firebase)).toEqual({
      ok: false,
      sourceId: 'f1',
      reasons: ['phoneNumber +* *** *** **********78 is not a valid international number'],
    });
    expect(convertSupabase({ id: 's1', phone: '99900045671234567' }, supabase)).toMatchObject({
      ok: false,
      sourceId: 's1',
      reasons: ['phone ***************67 is not a valid international number'],
    });
    expect(convertClerk({ id: 'c1', primary_phone_number: bad }, base)).toMatchObject({
      ok: false,
      sourceId: 'c1',
      reasons: ['primary_phone_number +* *** *** **********78 is not a valid international number'],
    });
  });

  it('refuses a malformed --provider-map', () => {
    expect([...parseProviderMap('a=b, c = d')]).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(() => parseProviderMap('a')).toThrow('--provider-map: "a" is not of the form name=thirdPartyId');
  });
});

describe('hostile records', () => {
  const converters = {
    auth0: (v: unknown) => convertAuth0(v, auth0),
    firebase: (v: unknown) => convertFirebase(v, firebase),
    supabase: (v: unknown) => convertSupabase(v, supabase),
    clerk: (v: unknown) => convertClerk(v, base),
    supertokens: (v: unknown) => convertSupertokens(v),
    keycloak: (v: unknown) => convertKeycloak(v, { ...base, withRoles: true }),
    django: (v: unknown) => convertDjango(v, base),
    wordpress: (v: unknown) => convertWordpress(v, base),
  };
  const fieldNames = [
    'user_id',
    'email',
    'email_verified',
    'identities',
    'created_at',
    'localId',
    'passwordHash',
    'salt',
    'providerUserInfo',
    'phoneNumber',
    'createdAt',
    'id',
    'encrypted_password',
    'phone',
    'email_confirmed_at',
    'primary_email_address',
    'password_digest',
    'password_hasher',
    'totp_secret',
    'loginMethods',
    'customAttributes',
    'raw_user_meta_data',
    'username',
    'credentials',
    'federatedIdentities',
    'realmRoles',
    'createdTimestamp',
    'pk',
    'fields',
    'ID',
    'user_email',
    'user_pass',
    'user_registered',
    'mfaInfo',
    'multiFactor',
    'multifactor',
  ];
  /** A secret the record may hold anywhere a factor's secret goes: never quoted in a reason or a factor message. */
  const SECRET = 'JBSWY3DPEHPK3PXPSECRETVALUE';
  const secretish = fc.oneof(
    fc.anything(),
    fc.constant(SECRET),
    fc.constant(JSON.stringify({ value: SECRET })),
    fc.constant(JSON.stringify({ subType: 'hotp', digits: 8, algorithm: 'HmacSHA256', secretEncoding: 'BASE32' })),
  );
  /** Fields where a secret stands in an export (the factor's secret, or the JSON text around it). */
  const secretFields = new Set(['value', 'secretData', 'credentialData', 'totp_secret', 'phoneInfo', 'totpInfo']);
  const record = fc.oneof(
    fc.anything(),
    fc.dictionary(
      fc.constantFrom(...fieldNames),
      fc.oneof(
        fc.anything(),
        fc.string(),
        fc.array(
          fc
            .dictionary(
              fc.constantFrom(
                'provider',
                'user_id',
                'providerId',
                'rawId',
                'email',
                'isSocial',
                'type',
                'secretData',
                'credentialData',
                'identityProvider',
                'userId',
                'password',
                'value',
                'userLabel',
                'phoneInfo',
                'totpInfo',
                'displayName',
                'factorId',
              ),
              fc.anything(),
            )
            .chain((entry) =>
              fc
                .tuple(
                  ...Object.keys(entry).map((key) => (secretFields.has(key) ? secretish : fc.constant(entry[key]))),
                )
                .map((values) => Object.fromEntries(Object.keys(entry).map((key, i) => [key, values[i]]))),
            ),
        ),
      ),
    ),
  );

  // One test per converter: each gets its own time budget on a loaded machine.
  it.each(Object.entries(converters))(
    '%s never throws: every record converts or comes back with reasons, and reasons never quote a hash',
    (name, convert) => {
      fc.assert(
        fc.property(record, (value) => {
          const result = convert(value);
          if (result.ok) {
            expect(Array.isArray(result.user.loginMethods), name).toBe(true);
            for (const message of result.factorsLeftBehind) expect(message).not.toContain(SECRET);
          } else {
            expect(result.reasons.length, name).toBeGreaterThan(0);
            for (const reason of result.reasons) {
              expect(reason).not.toContain(BCRYPT);
              expect(reason).not.toContain(SECRET);
            }
          }
        }),
        { numRuns: 300 },
      );
    },
  );

  it('a converted provider user always has an external id and only the core recipes, emails normalised', () => {
    fc.assert(
      fc.property(
        fc.record({
          user_id: fc.string({ minLength: 1 }),
          email: fc.emailAddress().map((e) => ` ${e.toUpperCase()} `),
          email_verified: fc.boolean(),
          identities: fc.array(
            fc.record({
              provider: fc.constantFrom('auth0', 'google-oauth2', 'github', 'email'),
              user_id: fc.string({ minLength: 1 }),
              isSocial: fc.boolean(),
            }),
            { minLength: 1, maxLength: 4 },
          ),
        }),
        (value) => {
          const result = convertAuth0(value, { ...auth0, hashFor: () => BCRYPT });
          if (!result.ok) return;
          expect(result.user.externalUserId).toBe(value.user_id.trim());
          for (const method of result.user.loginMethods) {
            expect(['emailpassword', 'thirdparty', 'passwordless']).toContain(method.recipeId);
            if (method.email !== undefined) expect(method.email).toBe(method.email.trim().toLowerCase());
          }
          expect(result.user.loginMethods.filter((m) => m.isPrimary).length).toBe(
            result.user.loginMethods.length > 1 ? 1 : 0,
          );
        },
      ),
    );
  });
});
