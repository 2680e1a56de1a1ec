/**
 * Nothing dropped silently: second factors become TOTP devices whose codes are the source's codes,
 * or a message per factor that cannot be carried; metadata keys that look like credentials are
 * dropped and named by path (bin/auth-core/src/credential-keys.ts), never by value.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonObject, WireImportUser } from '../../bin/auth-core/src/contract.js';
import { keyWords, looksLikeCredential, withoutCredentialKeys } from '../../bin/auth-core/src/credential-keys.js';
import { convertAuth0 } from '../../bin/auth-core/src/sources/auth0.js';
import { convertClerk } from '../../bin/auth-core/src/sources/clerk.js';
import { parseProviderMap } from '../../bin/auth-core/src/sources/common.js';
import type { Conversion } from '../../bin/auth-core/src/sources/conversion.js';
import { convertFirebase } from '../../bin/auth-core/src/sources/firebase.js';
import { convertKeycloak } from '../../bin/auth-core/src/sources/keycloak.js';
import { convertSupabase, type SupabaseFactor, supabaseFactor } from '../../bin/auth-core/src/sources/supabase.js';
import { canonicalBase32 } from '../../bin/auth-core/src/sources/totp.js';
import { CLERK_HEADER } from '../fixtures/migrate/exports.js';
import {
  firebaseMfaRecord,
  keycloakFactorsExport,
  keyOfSecret,
  supabaseFactorsExport,
  totpCode,
} from '../fixtures/migrate/second-factors.js';

const base = { tenantId: 'public', providerMap: parseProviderMap(undefined) };
const dir = mkdtempSync(join(tmpdir(), 'cli-factors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ok(conversion: Conversion): { user: WireImportUser; factorsLeftBehind: readonly string[] } {
  if (!conversion.ok) throw new Error(`refused: ${conversion.reasons.join('; ')}`);
  return conversion;
}

/** The device's codes are the source's codes, now and around now. */
function expectSameCodes(secretKey: string, key: Uint8Array, period: number): void {
  for (const time of [0, 59, 1_700_000_000, 2_000_000_017]) {
    expect(totpCode(keyOfSecret(secretKey), time, period)).toBe(totpCode(key, time, period));
  }
}

function expectNoSecret(values: readonly unknown[], secrets: readonly string[]): void {
  const text = JSON.stringify(values);
  for (const secret of secrets) expect(text.includes(secret), `leaked ${secret.slice(0, 4)}…`).toBe(false);
}

describe('keycloak OTP credentials', () => {
  const built = keycloakFactorsExport(dir, 'u1');
  const users = (JSON.parse(readFileSync(built.file, 'utf8')) as { users: JsonObject[] }).users;
  const convert = (i: number) => ok(convertKeycloak(users[i], { ...base, withRoles: false }));

  it('a TOTP credential (text or base32 secret) becomes a device whose codes are the same', () => {
    const tia = convert(0);
    const devices = tia.user.totpDevices ?? [];
    expect(devices.map((d) => [d.deviceName, d.period, d.skew])).toEqual([
      ['phone', 30, 1],
      ['phone (2)', 60, 1],
    ]);
    const keys = built.keys[tia.user.externalUserId as string] as Uint8Array[];
    devices.forEach((device, i) => {
      expect(device.secretKey).toMatch(/^[A-Z2-7]+$/);
      expectSameCodes(device.secretKey, keys[i] as Uint8Array, device.period as number);
    });
    expect(tia.factorsLeftBehind).toEqual([]);
    // The payload keeps the key order of docs/migrating.md "The import payload" (the chunk's bytes must not change between runs).
    expect(Object.keys(tia.user)).toEqual(['externalUserId', 'userMetadata', 'totpDevices', 'loginMethods']);
  });

  it('HOTP, HmacSHA256, 8 digits and WebAuthn cannot be carried: one message each, the user still goes in', () => {
    const hal = convert(1);
    expect(hal.user.totpDevices).toBeUndefined();
    expect(hal.user.loginMethods).toHaveLength(1);
    expect(hal.factorsLeftBehind).toEqual([
      "the otp credential is counter-based (HOTP): the core's TOTP devices are time-based, so it cannot be carried; the user sets up a second factor again",
      `the otp credential "work" uses HmacSHA256: the core's TOTP verifies HmacSHA1 only, so it cannot be carried; the user sets up a second factor again`,
      "the otp credential has 8 digits: the core's TOTP checks 6, so it cannot be carried; the user sets up a second factor again",
      'the webauthn credential "yubikey" cannot be carried: the core imports TOTP devices only; the user sets it up again',
    ]);
    expectNoSecret([hal], built.secrets);
  });

  it('Keycloak before 7: a totp credential with its fields on it', () => {
    const legacy = {
      id: 'old-1',
      username: 'old',
      email: 'old@example.com',
      credentials: [
        {
          type: 'totp',
          value: 'legacy-totp-secret!!',
          digits: 6,
          period: 30,
          algorithm: 'HmacSHA1',
          device: 'FreeOTP',
        },
        { type: 'hotp', value: 'legacy-hotp-secret!!', counter: 3 },
      ],
      federatedIdentities: [{ identityProvider: 'google', userId: 'g-old' }],
    };
    const result = ok(convertKeycloak(legacy, { ...base, withRoles: false }));
    expect(result.user.totpDevices?.map((d) => d.deviceName)).toEqual(['FreeOTP']);
    expectSameCodes(result.user.totpDevices?.[0]?.secretKey as string, Buffer.from('legacy-totp-secret!!'), 30);
    expect(result.factorsLeftBehind).toEqual([
      "the hotp credential is counter-based (HOTP): the core's TOTP devices are time-based, so it cannot be carried; the user sets up a second factor again",
    ]);
  });

  it('a secret that cannot be read is reported, not sent', () => {
    const user = (credentialData: object, secretData: object) => ({
      id: 'x-1',
      username: 'x',
      email: 'x@example.com',
      credentials: [
        {
          type: 'otp',
          userLabel: 'a',
          secretData: JSON.stringify(secretData),
          credentialData: JSON.stringify(credentialData),
        },
      ],
      federatedIdentities: [{ identityProvider: 'google', userId: 'g-x' }],
    });
    const sha1 = { subType: 'totp', digits: 6, period: 30, algorithm: 'HmacSHA1' };
    const cases: Array<[object, object, string]> = [
      [
        sha1,
        {},
        'the otp credential "a" has no usable secret (empty, not text, or longer than the core takes): it cannot be carried',
      ],
      [
        { ...sha1, secretEncoding: 'BASE32' },
        { value: 'not base32 !' },
        'the otp credential "a" has no usable secret (empty, not base32, or longer than the core takes): it cannot be carried',
      ],
      [
        { ...sha1, secretEncoding: 'HEX' },
        { value: 'abcd' },
        'the otp credential "a" has a secret in an encoding the command does not read (HEX): it cannot be carried',
      ],
      [
        sha1,
        { value: 'x'.repeat(200) },
        'the otp credential "a" has no usable secret (empty, not text, or longer than the core takes): it cannot be carried',
      ],
      [{ ...sha1, period: 0 }, { value: 'abc' }, 'the otp credential "a" has no valid period: it cannot be carried'],
    ];
    for (const [data, secret, message] of cases) {
      const result = ok(convertKeycloak(user(data, secret), { ...base, withRoles: false }));
      expect(result.user.totpDevices).toBeUndefined();
      expect(result.factorsLeftBehind).toEqual([message]);
    }
  });
});

describe('supabase MFA factors (--factors)', () => {
  const built = supabaseFactorsExport(dir, 'u2');
  const rows = readFileSync(built.args[1] as string, 'utf8')
    .trim()
    .split('\n');
  const header = (rows[0] as string).split(',');
  const factorRows = rows.slice(1).map((line) => {
    // The test's own CSV: the encrypted secret is the only quoted cell.
    const cells =
      line
        .match(/("([^"]|"")*"|[^,]*)(,|$)/g)
        ?.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"')) ?? [];
    return Object.fromEntries(header.map((h, i) => [h, cells[i] ?? '']));
  });
  const byUser = new Map<string, SupabaseFactor[]>();
  for (const row of factorRows) {
    const found = supabaseFactor(row);
    if (found) byUser.set(found.userId, [...(byUser.get(found.userId) ?? []), found.factor]);
  }
  const options = { ...base, identitiesOf: () => [], factorsOf: (id: string) => byUser.get(id) ?? [] };
  const userRow = (id: string) => ({
    id,
    email: `${id}@example.com`,
    encrypted_password: '',
    created_at: '2024-01-01 00:00:00+00',
  });

  it('unverified factors are skipped; verified TOTP factors become devices with the same codes', () => {
    const [first] = built.importedIds;
    expect(byUser.get(first as string)?.map((f) => f.type)).toEqual(['totp', 'totp']);
    const result = ok(convertSupabase(userRow(first as string), options));
    const devices = result.user.totpDevices ?? [];
    expect(devices.map((d) => [d.deviceName, d.period, d.skew])).toEqual([
      ['Authy', 30, 1],
      ['supabase', 30, 1],
    ]);
    for (const [i, d] of devices.entries())
      expectSameCodes(d.secretKey, built.keys[first as string]?.[i] as Uint8Array, 30);
    expect(result.factorsLeftBehind).toEqual([]);
  });

  it('phone, WebAuthn and a secret encrypted at rest cannot be carried: one message each', () => {
    const second = built.importedIds[1] as string;
    const result = ok(convertSupabase(userRow(second), options));
    expect(result.user.totpDevices).toBeUndefined();
    expect(result.factorsLeftBehind).toEqual([
      'the phone factor "sms" cannot be carried (the core has no SMS second factor); the user enrols a second factor again',
      'the webauthn factor "key" cannot be carried (the core imports TOTP devices only); the user enrols a second factor again',
      `the totp factor "sealed" has a secret Supabase encrypted at rest (its database encryption key is not in the export): it cannot be carried`,
    ]);
    expectNoSecret([result], built.secrets);
  });
});

describe('firebase, auth0 and clerk second factors', () => {
  it('firebase mfaInfo (phone and TOTP, no secret in the export): a message each, the number never quoted', () => {
    const result = ok(
      convertFirebase(firebaseMfaRecord('fb-1', 'fb@example.com'), {
        ...base,
        hashConfig: { signerKey: 'c2lnbmVy', saltSeparator: 'Bw==', rounds: 8, memCost: 14 },
      }),
    );
    expect(result.factorsLeftBehind).toEqual([
      'the phone second factor mfaInfo[0] "Work phone" cannot be carried (the core has no SMS second factor); the user enrols a second factor again',
      'the totp second factor mfaInfo[1] "Authenticator" cannot be carried (Firebase exports no TOTP secret); the user enrols a second factor again',
    ]);
    expect(JSON.stringify(result.factorsLeftBehind)).not.toContain('4155550123');
    const admin = ok(
      convertFirebase(
        {
          localId: 'fb-2',
          email: 'fb2@example.com',
          providerUserInfo: [{ providerId: 'google.com', rawId: 'g-2' }],
          multiFactor: { enrolledFactors: [{ uid: 'x', factorId: 'phone', phoneNumber: '+14155550199' }] },
        },
        { ...base, hashConfig: { signerKey: 'c2lnbmVy', saltSeparator: 'Bw==', rounds: 8, memCost: 14 } },
      ),
    );
    expect(admin.factorsLeftBehind).toEqual([
      'the phone second factor multiFactor.enrolledFactors[0] cannot be carried (the core has no SMS second factor); the user enrols a second factor again',
    ]);
  });

  it('auth0 multifactor: a message per provider', () => {
    const result = ok(
      convertAuth0(
        { user_id: 'google-oauth2|1', email: 'a@example.com', multifactor: ['guardian', 'google-authenticator'] },
        { ...base, hashFor: () => undefined, hashesGiven: false },
      ),
    );
    expect(result.factorsLeftBehind).toEqual([
      `the Auth0 MFA enrolment "guardian" cannot be carried (Auth0's exports hold no second-factor secret); the user enrols a second factor again`,
      `the Auth0 MFA enrolment "google-authenticator" cannot be carried (Auth0's exports hold no second-factor secret); the user enrols a second factor again`,
    ]);
  });

  it('clerk totp_secret: base32 as written (spaces, lower case, padding) is carried canonical; anything else is reported', () => {
    const row = (secret: string) =>
      Object.fromEntries(
        CLERK_HEADER.map((h) => [
          h,
          h === 'id' ? 'user_1' : h === 'primary_email_address' ? 'c@example.com' : h === 'totp_secret' ? secret : '',
        ]),
      );
    expect(ok(convertClerk(row('jbsw y3dp ehpk 3pxp===='), base)).user.totpDevices).toEqual([
      { secretKey: 'JBSWY3DPEHPK3PXP', period: 30, skew: 1, deviceName: 'clerk' },
    ]);
    const bad = ok(convertClerk(row('not-base32-1890!'), base));
    expect(bad.user.totpDevices).toBeUndefined();
    expect(bad.factorsLeftBehind).toEqual([
      'totp_secret is not base32 (or longer than the core takes): the TOTP device cannot be carried',
    ]);
  });

  it('canonicalBase32 keeps the bytes: decode(canonical) = decode(any accepted spelling)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 150 }),
        fc.boolean(),
        fc.boolean(),
        (bytes, lower, spaced) => {
          const text = keyText(bytes);
          expect(canonicalBase32(text)).toBe(text);
          let spelled = lower ? text.toLowerCase() : text;
          if (spaced) spelled = spelled.replace(/(.{4})/g, '$1 ');
          expect(canonicalBase32(spelled)).toBe(text);
          expect(Buffer.from(keyOfSecret(text))).toEqual(Buffer.from(bytes));
        },
      ),
    );
  });
});

/** RFC 4648 base32 of bytes, written here the long way so the test does not trust the module's encoder. */
function keyText(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[Number.parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}

describe('metadata keys that look like credentials', () => {
  const credentialStems = [
    ['password'],
    ['passwd'],
    ['pwd'],
    ['secret'],
    ['token'],
    ['api', 'key'],
    ['access', 'token'],
    ['refresh', 'token'],
    ['id', 'token'],
    ['client', 'secret'],
    ['mfa', 'secret'],
    ['totp', 'secret'],
    ['otp'],
    ['salt'],
    ['password', 'hash'],
    ['private', 'key'],
    ['backup', 'codes'],
    ['recovery', 'codes'],
    ['key'],
    ['signing', 'keys'],
    ['session', 'tokens'],
    ['credentials'],
  ];
  const safeStems = [
    ['name'],
    ['plan'],
    ['display', 'name'],
    ['keyboard'],
    ['monkey'],
    ['password', 'updated', 'at'],
    ['totp', 'enabled'],
    ['token', 'type'],
    ['key', 'id'],
    ['has', 'password'],
    ['is', 'mfa', 'verified'],
    ['basalt'],
    ['hashtag'],
    ['locale'],
    ['mfa', 'methods'],
    ['tokenizer'],
    ['secretary'],
  ];
  const prefixes = [[], ['user'], ['github'], ['x']];
  /** A key spelled in one of the ways keys are written. */
  const spelling = (words: readonly string[]) =>
    fc
      .constantFrom<(w: readonly string[]) => string>(
        (w) => w.join('_'),
        (w) => w.join('-'),
        (w) => w.join('.'),
        (w) => w.join(' '),
        (w) => w.map((x, i) => (i === 0 ? x : x[0]?.toUpperCase() + x.slice(1))).join(''),
        (w) => w.map((x) => x[0]?.toUpperCase() + x.slice(1)).join(''),
        (w) => w.join('_').toUpperCase(),
        (w) => `${w.join('_')}2`,
      )
      .map((spell) => spell(words));
  const credentialKey = fc
    .tuple(fc.constantFrom(...prefixes), fc.constantFrom(...credentialStems))
    .chain(([prefix, stem]) => spelling([...prefix, ...stem]));
  const safeKey = fc
    .tuple(fc.constantFrom(...prefixes), fc.constantFrom(...safeStems))
    .chain(([prefix, stem]) => spelling([...prefix, ...stem]));

  it('every spelling of a credential word is caught; descriptive and look-alike keys are kept', () => {
    fc.assert(
      fc.property(credentialKey, (key) => {
        expect(looksLikeCredential(key), key).toBe(true);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(safeKey, (key) => {
        expect(looksLikeCredential(key), key).toBe(false);
      }),
      { numRuns: 500 },
    );
    expect(keyWords('APIKey2_refreshToken')).toEqual(['api', 'key', 'refresh', 'token']);
    for (const key of ['accesstoken', 'clientsecret', 'userpassword', 'APIKEY', 'GITHUB_TOKEN'])
      expect(looksLikeCredential(key), key).toBe(true);
  });

  /** A metadata tree of safe keys, with credential keys planted at any level holding a unique secret. */
  interface Planted {
    readonly withSecrets: unknown;
    readonly without: unknown;
    readonly paths: readonly string[];
    readonly secrets: readonly string[];
  }
  const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
  const { tree } = fc.letrec<{ tree: Planted; node: Planted }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf.map((v) => ({ withSecrets: v, without: v, paths: [], secrets: [] })),
      tie('tree'),
      fc.array(tie('node'), { maxLength: 3 }).map((items) => ({
        withSecrets: items.map((i) => i.withSecrets),
        without: items.map((i) => i.without),
        paths: items.flatMap((item, i) => item.paths.map((p) => `[${i}]${p.startsWith('[') ? p : `.${p}`}`)),
        secrets: items.flatMap((i) => i.secrets),
      })),
    ),
    tree: fc
      .tuple(
        fc.uniqueArray(fc.tuple(safeKey, tie('node')), { maxLength: 4, selector: ([k]) => k }),
        fc.uniqueArray(credentialKey, { maxLength: 2 }),
        fc.integer({ min: 0, max: 1_000_000 }),
      )
      .map(([safe, planted, n]) => {
        const withSecrets: JsonObject = {};
        const without: JsonObject = {};
        const paths: string[] = [];
        const secrets: string[] = [];
        const plantedKeys = planted.filter((k) => !safe.some(([s]) => s === k));
        for (const [key, child] of safe) {
          withSecrets[key] = child.withSecrets;
          without[key] = child.without;
          const segment = /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
          for (const p of child.paths) paths.push(`${segment}${p.startsWith('[') ? p : `.${p}`}`);
          secrets.push(...child.secrets);
        }
        plantedKeys.forEach((key, i) => {
          const secret = `s3cr3t-${n}-${i}-${Math.random().toString(36).slice(2, 8)}`;
          withSecrets[key] = i % 2 === 0 ? secret : { nested: secret };
          paths.push(/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key) ? key : `[${JSON.stringify(key)}]`);
          secrets.push(secret);
        });
        return { withSecrets, without, paths, secrets };
      }),
  }));

  it('scrubbing drops exactly the planted keys at any level, keeps the rest as it was, and names paths not values', () => {
    fc.assert(
      fc.property(tree, ({ withSecrets, without, paths, secrets }) => {
        const { metadata, dropped } = withoutCredentialKeys(withSecrets as JsonObject);
        expect(metadata).toEqual(without);
        expect([...dropped].sort()).toEqual([...paths].sort());
        expectNoSecret([metadata, dropped], secrets);
      }),
      { numRuns: 300 },
    );
  });

  it('a `__proto__` key stays an own key; an object with nothing to drop comes back as it is', () => {
    const parsed = JSON.parse('{"__proto__":{"token":"t-1234"},"plan":"gold"}') as JsonObject;
    const { metadata, dropped } = withoutCredentialKeys(parsed);
    expect(dropped).toEqual(['__proto__.token']);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(JSON.stringify(metadata)).toBe('{"__proto__":{},"plan":"gold"}');
    const clean = { plan: 'gold', nested: [{ a: 1 }] };
    expect(withoutCredentialKeys(clean).metadata).toBe(clean);
  });
});
