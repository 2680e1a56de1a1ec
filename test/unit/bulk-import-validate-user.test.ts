import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalisePhoneNumber } from '#functions/contract/phone-numbers.js';
import { getPrimaryLoginMethod, withFreshIds } from '#functions/domain/bulk-import/primary.js';
import { type ImportValidationContext, validateImportUser } from '#functions/domain/bulk-import/validate-user.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import { HASHING_ALGORITHMS } from '#functions/domain/passwords/algorithm.js';
import { UNKNOWN_ROLES_AND_TENANT_T1_ERRORS } from '../fixtures/import-users.js';

const NOW = 1_750_000_000_000;

function makeCtx(
  overrides: Partial<Omit<ImportValidationContext, 'features'>> & {
    roles?: string[];
    tenants?: string[];
    features?: Partial<ImportValidationContext['features']>;
  } = {},
): ImportValidationContext {
  const roles = new Set(overrides.roles ?? ['role1', 'role2']);
  const tenants = new Set(overrides.tenants ?? ['public', 't1']);
  let counter = 0;
  return {
    now: overrides.now ?? NOW,
    newId: overrides.newId ?? (() => `id-${++counter}`),
    roleExists: overrides.roleExists ?? ((role) => roles.has(role)),
    tenantExists: overrides.tenantExists ?? ((tenantId) => tenants.has(tenantId)),
    features: { accountLinking: true, mfa: true, ...overrides.features },
    firebaseSignerKeyConfigured: overrides.firebaseSignerKeyConfigured ?? true,
  };
}

function errorsOf(raw: unknown, ctx = makeCtx()): string[] {
  const result = validateImportUser(raw, ctx);
  if (result.ok) throw new Error(`expected errors, got user ${JSON.stringify(result.user)}`);
  return result.errors;
}

function userOf(raw: unknown, ctx = makeCtx()): ImportUser {
  const result = validateImportUser(raw, ctx);
  if (!result.ok) throw new Error(`expected a valid user, got ${JSON.stringify(result.errors)}`);
  return result.user;
}

const ep = (extra: Record<string, unknown> = {}) => ({
  recipeId: 'emailpassword',
  email: 'john@example.com',
  passwordHash: '$2a$10$abcdefghijklmnopqrstuv',
  hashingAlgorithm: 'bcrypt',
  ...extra,
});
const tp = (extra: Record<string, unknown> = {}) => ({
  recipeId: 'thirdparty',
  email: 'john@example.com',
  thirdPartyId: 'google',
  thirdPartyUserId: '112618388912586834161',
  ...extra,
});
const pl = (extra: Record<string, unknown> = {}) => ({ recipeId: 'passwordless', email: 'john@example.com', ...extra });

/** The reference test generator's user (tenants public + t1, roles role1/role2, 3 login methods). */
function referenceGeneratedUser(tenants: string[] = ['public', 't1'], roles: string[] = ['role1', 'role2']) {
  return {
    id: 'somebogus-id',
    externalUserId: 'external-0',
    userMetadata: { key1: 'v', key2: { key3: 'value3' } },
    userRoles: roles.map((role) => ({ role, tenantIds: tenants })),
    totpDevices: [{ secretKey: 'secretKey', period: 30, skew: 1, deviceName: 'deviceName' }],
    loginMethods: [
      {
        tenantIds: tenants,
        isVerified: true,
        isPrimary: true,
        timeJoinedInMSSinceEpoch: NOW - 10,
        recipeId: 'emailpassword',
        email: 'user0@example.com',
        passwordHash: '$2a',
        hashingAlgorithm: 'BCRYPT',
        superTokensUserId: 'client-supplied-1',
      },
      {
        tenantIds: tenants,
        isVerified: false,
        isPrimary: false,
        timeJoinedInMSSinceEpoch: NOW - 10,
        recipeId: 'thirdparty',
        email: 'user0@example.com',
        thirdPartyId: 'thirdPartyId0',
        thirdPartyUserId: 'thirdPartyUserId0',
        superTokensUserId: 'client-supplied-2',
      },
      {
        tenantIds: tenants,
        isVerified: true,
        isPrimary: false,
        timeJoinedInMSSinceEpoch: NOW - 10,
        recipeId: 'passwordless',
        email: 'user0@example.com',
        superTokensUserId: 'client-supplied-3',
      },
    ],
  };
}

describe('validateImportUser – user-level fields (docs/reference-behaviour.md "Validating an import user")', () => {
  it('requires loginMethods', () => {
    expect(errorsOf({})).toEqual(['loginMethods is required.']);
    expect(errorsOf({ loginMethods: 'string' })).toEqual(['loginMethods should be of type array of object.']);
    expect(errorsOf({ loginMethods: [] })).toEqual(['At least one loginMethod is required.']);
    expect(errorsOf({ loginMethods: [ep(), 'x'] })).toEqual(['loginMethods should be of type array of object.']);
  });

  it('reports wrong-typed optional fields in table order and ignores unknown fields', () => {
    expect(errorsOf({ externalUserId: [], userMetaData: [], userRoles: {}, totpDevices: {} })).toEqual([
      'externalUserId should be of type string.',
      'userRoles should be of type array of object.',
      'totpDevices should be of type array of object.',
      'loginMethods is required.',
    ]);
    expect(errorsOf({ userMetadata: [], loginMethods: [ep()] })).toEqual(['userMetadata should be of type object.']);
  });

  it('treats explicit null as present with the wrong type', () => {
    expect(errorsOf({ externalUserId: null, userMetadata: null, loginMethods: null })).toEqual([
      'externalUserId should be of type string.',
      'userMetadata should be of type object.',
      'loginMethods should be of type array of object.',
    ]);
    expect(errorsOf({ loginMethods: [ep({ isPrimary: null, email: null })] })).toEqual([
      'isPrimary should be of type boolean for a loginMethod.',
      'email should be of type string for an emailpassword recipe.',
    ]);
  });

  it('treats blank strings as type errors', () => {
    expect(errorsOf({ externalUserId: '   ', loginMethods: [ep({ email: '' })] })).toEqual([
      'externalUserId should be of type string.',
      'email should be of type string for an emailpassword recipe.',
    ]);
  });

  it('checks externalUserId length (pre-trim) and trims it', () => {
    const long = 'x'.repeat(129);
    expect(errorsOf({ externalUserId: long, loginMethods: [ep()] })).toEqual([
      `externalUserId ${long} is too long. Max length is 128.`,
    ]);
    expect(userOf({ externalUserId: '  ext-1  ', loginMethods: [ep()] }).externalUserId).toBe('ext-1');
  });

  it('checks externalUserId uniqueness against the shared set (exact raw value, first occurrence OK)', () => {
    const ctx = makeCtx();
    const seenExternalUserIds = new Set<string>();
    expect(validateImportUser({ externalUserId: 'id1' }, ctx, { seenExternalUserIds })).toEqual({
      ok: false,
      errors: ['loginMethods is required.'],
    });
    expect(validateImportUser({ externalUserId: 'id1' }, ctx, { seenExternalUserIds })).toEqual({
      ok: false,
      errors: ['loginMethods is required.', 'externalUserId id1 is not unique. It is already used by another user.'],
    });
    expect(validateImportUser({ externalUserId: ' id1', loginMethods: [ep()] }, ctx, { seenExternalUserIds }).ok).toBe(
      true,
    );
  });

  it('keeps userMetadata as given', () => {
    const userMetadata = { a: 1, nested: { b: [1, 2] }, n: null };
    expect(userOf({ userMetadata, loginMethods: [ep()] }).userMetadata).toEqual(userMetadata);
  });
});

describe('validateImportUser – userRoles', () => {
  it('requires tenantIds and reports unknown roles', () => {
    expect(errorsOf({ userRoles: [{ role: 'role1' }] })).toEqual([
      'tenantIds is required for a user role.',
      'loginMethods is required.',
    ]);
    expect(errorsOf({ userRoles: [{ role: 'role5', tenantIds: ['public'] }] })).toEqual([
      'Role role5 does not exist.',
      'loginMethods is required.',
    ]);
  });

  it('deliberate difference: a missing or blank role is a normal validation error, not a crash', () => {
    expect(errorsOf({ userRoles: [{ tenantIds: ['public'] }], loginMethods: [ep()] })).toEqual([
      'role is required for a user role.',
    ]);
    expect(errorsOf({ userRoles: [{ role: '  ', tenantIds: ['public'] }], loginMethods: [ep()] })).toEqual([
      'role should be of type string for a user role.',
    ]);
    expect(errorsOf({ userRoles: [{ role: null, tenantIds: 'x' }], loginMethods: [ep()] })).toEqual([
      'role should be of type string for a user role.',
      'tenantIds should be of type array of string for a user role.',
    ]);
  });

  it('trims the role, checks its length pre-trim and validates its tenants', () => {
    const user = userOf({
      userRoles: [{ role: '  role1 ', tenantIds: ['public', ' T1 ', 't1'] }],
      loginMethods: [ep({ tenantIds: ['t1'] })],
    });
    expect(user.userRoles).toEqual([{ role: 'role1', tenantIds: ['public', 't1'] }]);

    const long = 'r'.repeat(256);
    expect(errorsOf({ userRoles: [{ role: long, tenantIds: ['nope'] }], loginMethods: [ep()] })).toEqual([
      `role ${long} is too long. Max length is 255.`,
      `Role ${long} does not exist.`,
      'Invalid tenantId: nope for a user role.',
    ]);
  });

  it('requires non-public role tenants to be tenants of some login method', () => {
    expect(errorsOf({ userRoles: [{ role: 'role1', tenantIds: ['public', 't1'] }], loginMethods: [ep()] })).toEqual([
      'TenantId t1 for a user role does not exist in loginMethods.',
    ]);
  });

  it('defaults to an empty list', () => {
    expect(userOf({ loginMethods: [ep()] }).userRoles).toEqual([]);
  });
});

describe('validateImportUser – totpDevices', () => {
  it('requires MFA, even for an empty list', () => {
    const ctx = makeCtx({ features: { mfa: false } });
    expect(errorsOf({ totpDevices: [{ secret: 'secret' }] }, ctx)).toEqual([
      'MFA must be enabled to import totp devices.',
      'loginMethods is required.',
    ]);
    expect(errorsOf({ totpDevices: [], loginMethods: [ep()] }, ctx)).toEqual([
      'MFA must be enabled to import totp devices.',
    ]);
    expect(userOf({ loginMethods: [ep()] }, ctx).totpDevices).toEqual([]);
  });

  it('requires secretKey', () => {
    expect(errorsOf({ totpDevices: [{ secret: 'secret' }] })).toEqual([
      'secretKey is required for a totp device.',
      'loginMethods is required.',
    ]);
  });

  it('applies defaults and trims deviceName', () => {
    const user = userOf({
      totpDevices: [{ secretKey: 'k1' }, { secretKey: ' k2 ', period: 60.9, skew: 0, deviceName: ' phone ' }],
      loginMethods: [ep()],
    });
    expect(user.totpDevices).toEqual([
      { secretKey: 'k1', period: 30, skew: 1 },
      { secretKey: ' k2 ', period: 60, skew: 0, deviceName: 'phone' },
    ]);
  });

  it('checks types, ranges and lengths', () => {
    const k = 'k'.repeat(257);
    const n = 'n'.repeat(257);
    expect(
      errorsOf({
        totpDevices: [
          { secretKey: 1, period: '30', skew: true, deviceName: [] },
          { secretKey: k, period: 0, skew: -1, deviceName: n },
        ],
        loginMethods: [ep()],
      }),
    ).toEqual([
      'secretKey should be of type string for a totp device.',
      'period should be of type integer for a totp device.',
      'skew should be of type integer for a totp device.',
      'deviceName should be of type string for a totp device.',
      'TOTP secretKey <redacted> is too long. Max length is 256.',
      'period should be > 0 for a totp device.',
      'skew should be >= 0 for a totp device.',
      `TOTP deviceName ${n} is too long. Max length is 256.`,
    ]);
  });
});

describe('validateImportUser – login methods, common fields', () => {
  it('reports wrong-typed common fields (timeJoined message has no trailing dot)', () => {
    expect(
      errorsOf({
        loginMethods: [{ recipeId: [], tenantIds: {}, isPrimary: [], isVerified: [], timeJoinedInMSSinceEpoch: [] }],
      }),
    ).toEqual([
      'recipeId should be of type string for a loginMethod.',
      'tenantIds should be of type array of string for a loginMethod.',
      'isVerified should be of type boolean for a loginMethod.',
      'isPrimary should be of type boolean for a loginMethod.',
      'timeJoinedInMSSinceEpoch should be of type integer for a loginMethod',
    ]);
  });

  it('rejects an unknown recipeId (case-sensitive)', () => {
    const msg = 'Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!';
    expect(errorsOf({ loginMethods: [{ recipeId: 'invalid_recipe_id' }] })).toEqual([msg]);
    expect(errorsOf({ loginMethods: [ep({ recipeId: 'EmailPassword' })] })).toEqual([msg]);
    expect(errorsOf({ loginMethods: [{}] })).toEqual(['recipeId is required for a loginMethod.']);
  });

  it('requires account linking or MFA for several login methods', () => {
    const both = { loginMethods: [ep({ isPrimary: true }), pl()] };
    expect(errorsOf(both, makeCtx({ features: { accountLinking: false, mfa: false } }))).toEqual([
      'Account linking must be enabled to import multiple loginMethods.',
    ]);
    expect(validateImportUser(both, makeCtx({ features: { accountLinking: false, mfa: true } })).ok).toBe(true);
    expect(validateImportUser(both, makeCtx({ features: { accountLinking: true, mfa: false } })).ok).toBe(true);
  });

  it('allows at most one primary login method (one error per extra primary)', () => {
    expect(errorsOf({ loginMethods: [ep({ isPrimary: true }), pl({ isPrimary: true })] })).toEqual([
      'No two loginMethods can have isPrimary as true.',
    ]);
    expect(
      errorsOf({ loginMethods: [ep({ isPrimary: true }), pl({ isPrimary: true }), tp({ isPrimary: true })] }),
    ).toEqual(['No two loginMethods can have isPrimary as true.', 'No two loginMethods can have isPrimary as true.']);
  });

  it('a single primary login method passes validation without account linking (E019 is the importer’s)', () => {
    const ctx = makeCtx({ features: { accountLinking: false, mfa: false } });
    expect(userOf({ loginMethods: [ep({ isPrimary: true })] }, ctx).loginMethods[0]?.isPrimary).toBe(true);
  });

  it('validates and normalises tenantIds', () => {
    expect(errorsOf({ loginMethods: [pl({ tenantIds: ['invalid'] })] })).toEqual([
      'Invalid tenantId: invalid for passwordless recipe.',
    ]);
    expect(
      errorsOf({ loginMethods: [pl({ tenantIds: ['invalid'] })] }, makeCtx({ features: { multitenancy: false } })),
    ).toEqual(['Multitenancy must be enabled before importing users to a different tenant.']);
    // exactly "public" needs no multitenancy
    expect(
      validateImportUser(
        { loginMethods: [pl({ tenantIds: ['public'] })] },
        makeCtx({ features: { multitenancy: false } }),
      ).ok,
    ).toBe(true);

    const user = userOf({ loginMethods: [pl({ tenantIds: [' T1', 't1 ', 'PUBLIC'] })] });
    expect(user.loginMethods[0]?.tenantIds).toEqual(['t1', 'public']);
    expect(userOf({ loginMethods: [pl()] }).loginMethods[0]?.tenantIds).toEqual(['public']);
    expect(errorsOf({ loginMethods: [pl({ tenantIds: ['t1', ' '] })] })).toEqual([
      'tenantIds should be of type array of string for a loginMethod.',
    ]);
  });

  it('quirk: a missing recipeId appears as "null" in tenant errors', () => {
    expect(errorsOf({ loginMethods: [{ tenantIds: ['nope'] }] })).toEqual([
      'recipeId is required for a loginMethod.',
      'Invalid tenantId: nope for null recipe.',
    ]);
  });

  it('reports a login method left without tenants', () => {
    const errors = errorsOf({ loginMethods: [pl({ tenantIds: [] })] });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^LoginMethod '\{.*"recipeId":"passwordless".*\}' has no tenantId$/);
  });

  it('quotes a login method left without tenants with its credentials redacted', () => {
    const hash = '$2a$10$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe';
    const errors = errorsOf({
      loginMethods: [ep({ passwordHash: hash, plainTextPassword: 'hunter2-secret', tenantIds: [] })],
    });
    expect(errors).toEqual([
      `LoginMethod '{"tenantIds":[],"isVerified":false,"isPrimary":false,"timeJoinedInMSSinceEpoch":${NOW},"recipeId":"emailpassword","email":"john@example.com","passwordHash":"<redacted>","hashingAlgorithm":"BCRYPT","plainTextPassword":"<redacted>","superTokensUserId":"id-1"}' has no tenantId`,
    ]);
  });

  it('tenants of one app share one database: spreading a user over tenants is fine', () => {
    const ctx = makeCtx({ tenants: ['public', 't1', 't2'] });
    expect(
      validateImportUser({ loginMethods: [pl({ tenantIds: ['public'] }), tp({ tenantIds: ['t2'] })] }, ctx).ok,
    ).toBe(true);
  });

  it('defaults and checks timeJoinedInMSSinceEpoch (any number, fraction truncated)', () => {
    expect(userOf({ loginMethods: [pl()] }).loginMethods[0]?.timeJoinedInMSSinceEpoch).toBe(NOW);
    expect(
      userOf({ loginMethods: [pl({ timeJoinedInMSSinceEpoch: 12.9 })] }).loginMethods[0]?.timeJoinedInMSSinceEpoch,
    ).toBe(12);
    expect(
      userOf({ loginMethods: [pl({ timeJoinedInMSSinceEpoch: NOW })] }).loginMethods[0]?.timeJoinedInMSSinceEpoch,
    ).toBe(NOW);
    expect(errorsOf({ loginMethods: [pl({ timeJoinedInMSSinceEpoch: NOW + 1 })] })).toEqual([
      'timeJoined cannot be in future for a loginMethod.',
    ]);
    expect(errorsOf({ loginMethods: [pl({ timeJoinedInMSSinceEpoch: -1 })] })).toEqual([
      'timeJoined cannot be < 0 for a loginMethod.',
    ]);
    expect(errorsOf({ loginMethods: [pl({ timeJoinedInMSSinceEpoch: '5' })] })).toEqual([
      'timeJoinedInMSSinceEpoch should be of type integer for a loginMethod',
    ]);
  });

  it('defaults isVerified and isPrimary to false', () => {
    const lm = userOf({ loginMethods: [pl()] }).loginMethods[0];
    expect(lm?.isVerified).toBe(false);
    expect(lm?.isPrimary).toBe(false);
  });
});

describe('validateImportUser – emailpassword', () => {
  it('requires email and a password', () => {
    expect(errorsOf({ loginMethods: [{ recipeId: 'emailpassword' }] })).toEqual([
      'email is required for an emailpassword recipe.',
      'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
    ]);
    expect(errorsOf({ loginMethods: [{ recipeId: 'emailpassword', email: 'a@b.c', passwordHash: '$2a' }] })).toEqual([
      'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
    ]);
  });

  it('reports wrong types', () => {
    expect(
      errorsOf({ loginMethods: [{ recipeId: 'emailpassword', email: [], passwordHash: [], hashingAlgorithm: [] }] }),
    ).toEqual([
      'email should be of type string for an emailpassword recipe.',
      'passwordHash should be of type string for an emailpassword recipe.',
      'hashingAlgorithm should be of type string for an emailpassword recipe.',
      'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
    ]);
  });

  it('rejects an unknown hashing algorithm', () => {
    expect(
      errorsOf({
        loginMethods: [
          {
            recipeId: 'emailpassword',
            email: 'johndoe@gmail.com',
            passwordHash: '$2a',
            hashingAlgorithm: 'invalid_algorithm',
          },
        ],
      }),
    ).toEqual([
      'Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2, firebase_scrypt, pbkdf2, scrypt, phpass, md5, sha1, sha256, sha512 or, ldap!',
    ]);
  });

  it('names every accepted algorithm in that message, and refuses with it exactly the names it does not list', () => {
    const message = errorsOf({
      loginMethods: [{ recipeId: 'emailpassword', email: 'a@b.c', passwordHash: '$2a', hashingAlgorithm: 'x' }],
    })[0] as string;
    const listed = /Pass one of (.*)!$/
      .exec(message)?.[1]
      ?.split(/, (?:or, )?| or, /)
      .map((name) => name.toUpperCase());
    expect(listed).toEqual([...HASHING_ALGORITHMS]);
    fc.assert(
      // Blank names get the reference's type error instead (above); listed names pass in any case, padded.
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 20 }).filter((name) => name.trim() !== ''),
          fc
            .tuple(fc.constantFrom(...HASHING_ALGORITHMS), fc.boolean(), fc.constantFrom('', ' ', '\t'))
            .map(([name, lower, pad]) => `${pad}${lower ? name.toLowerCase() : name}${pad}`),
        ),
        (name) => {
          const result = validateImportUser(
            {
              loginMethods: [
                { recipeId: 'emailpassword', email: 'a@b.c', passwordHash: '$2a', hashingAlgorithm: name },
              ],
            },
            makeCtx(),
          );
          const refused = !result.ok && result.errors.includes(message);
          return refused === !listed?.includes(name.trim().toUpperCase());
        },
      ),
    );
  });

  it('normalises email, algorithm and hash', () => {
    const lm = userOf({
      loginMethods: [
        ep({
          email: ' JohnDoe+0@Gmail.com ',
          hashingAlgorithm: ' Argon2 ',
          passwordHash: ' $argon2d$v=19$m=12,t=3,p=1$aGI4enNvMmd0Zm0wMDAwMA$r6p7qbr6HD+8CD7sBi4HVw ',
        }),
      ],
    }).loginMethods[0];
    expect(lm).toMatchObject({
      recipeId: 'emailpassword',
      email: 'johndoe+0@gmail.com',
      hashingAlgorithm: 'ARGON2',
      passwordHash: '$argon2d$v=19$m=12,t=3,p=1$aGI4enNvMmd0Zm0wMDAwMA$r6p7qbr6HD+8CD7sBi4HVw',
    });
  });

  it('checks the hash format and lengths', () => {
    expect(errorsOf({ loginMethods: [ep({ passwordHash: 'plain' })] })).toEqual([
      'Password hash is in invalid BCrypt format',
    ]);
    expect(errorsOf({ loginMethods: [ep({ passwordHash: 'plain', hashingAlgorithm: 'argon2' })] })).toEqual([
      'Password hash is in invalid Argon2 format',
    ]);
    const longHash = `$2a${'x'.repeat(254)}`;
    expect(errorsOf({ loginMethods: [ep({ passwordHash: longHash })] })).toEqual([
      'passwordHash is too long. Max length is 256.',
    ]);
    const longEmail = `${'e'.repeat(244)}@example.com`;
    expect(longEmail).toHaveLength(256);
    expect(errorsOf({ loginMethods: [ep({ email: longEmail })] })).toEqual([
      `email ${longEmail} is too long. Max length is 256.`,
    ]);
    expect(validateImportUser({ loginMethods: [ep({ email: longEmail.slice(1) })] }, makeCtx()).ok).toBe(true);
  });

  it('stores a legacy family in its canonical form (the hash itself is the scheme)', () => {
    // Django's pbkdf2_sha256 form (salt used as text) becomes the PHC-like stored form.
    const digest = Buffer.alloc(32, 1).toString('base64');
    const lm = userOf({
      loginMethods: [ep({ hashingAlgorithm: ' PBKDF2 ', passwordHash: ` pbkdf2_sha256$1000$salt$${digest} ` })],
    }).loginMethods[0];
    expect(lm).toMatchObject({
      hashingAlgorithm: 'PBKDF2',
      passwordHash: `$pbkdf2-sha256$i=1000,l=32$${Buffer.from('salt').toString('base64').replace(/=+$/, '')}$${digest.replace(/=+$/, '')}`,
    });
    // An unsalted hex MD5 digest is stored as a template form that names its algorithm.
    const md5 = userOf({
      loginMethods: [ep({ hashingAlgorithm: 'md5', passwordHash: '5f4dcc3b5aa765d61d8327deb882cf99' })],
    }).loginMethods[0];
    expect(md5).toMatchObject({ hashingAlgorithm: 'MD5', passwordHash: expect.stringMatching(/^\$md5\$pf=/) });
  });

  it('deliberate difference: refuses hash costs beyond the bounds, naming the parameter and the limit', () => {
    const bcrypt20 = `$2a$20$${'a'.repeat(53)}`;
    expect(errorsOf({ loginMethods: [ep({ passwordHash: bcrypt20 })] })).toEqual([
      'Password hash is in invalid BCrypt format: cost 20 is above the limit of 14',
    ]);
    const django = `pbkdf2_sha256$99999999$s$${Buffer.alloc(32, 1).toString('base64')}`;
    expect(errorsOf({ loginMethods: [ep({ hashingAlgorithm: 'pbkdf2', passwordHash: django })] })).toEqual([
      'Password hash is in invalid PBKDF2 format: iterations 99999999 is above the limit of 1500000',
    ]);
    expect(errorsOf({ loginMethods: [ep({ hashingAlgorithm: 'md5', passwordHash: 'not-hex' })] })).toEqual([
      'Password hash is in invalid MD5 format',
    ]);
  });

  it('accepts a plain-text password, kept as given', () => {
    const lm = userOf({ loginMethods: [{ recipeId: 'emailpassword', email: 'a@b.c', plainTextPassword: ' pw ' }] })
      .loginMethods[0];
    expect(lm).toEqual({
      tenantIds: ['public'],
      isVerified: false,
      isPrimary: false,
      timeJoinedInMSSinceEpoch: NOW,
      recipeId: 'emailpassword',
      email: 'a@b.c',
      plainTextPassword: ' pw ',
      superTokensUserId: 'id-1',
    });
  });

  it('quirk: a hash without algorithm next to plainTextPassword is stored unvalidated', () => {
    const lm = userOf({
      loginMethods: [
        { recipeId: 'emailpassword', email: 'a@b.c', passwordHash: ' not-a-hash ', plainTextPassword: 'pw' },
      ],
    }).loginMethods[0];
    expect(lm).toMatchObject({ passwordHash: ' not-a-hash ', plainTextPassword: 'pw' });
    expect(lm).not.toHaveProperty('hashingAlgorithm');
  });

  it('deliberate difference: a Firebase scrypt hash needs the app signer key', () => {
    const firebaseHash = '$f_scrypt$aGFzaA==$c2FsdA==$m=14$r=8$s=Bw==';
    const user = { loginMethods: [ep({ hashingAlgorithm: 'firebase_scrypt', passwordHash: firebaseHash })] };
    expect(userOf(user).loginMethods[0]).toMatchObject({
      hashingAlgorithm: 'FIREBASE_SCRYPT',
      passwordHash: firebaseHash,
    });
    expect(errorsOf(user, makeCtx({ firebaseSignerKeyConfigured: false }))).toEqual([
      'firebase_password_hashing_signer_key must be set for this app to import FIREBASE_SCRYPT password hashes for an emailpassword recipe.',
    ]);
    expect(
      errorsOf({ loginMethods: [ep({ hashingAlgorithm: 'FIREBASE_SCRYPT', passwordHash: '$f_scrypt$x' })] }),
    ).toEqual(['Password hash is in invalid Firebase SCrypt format']);
  });
});

describe('validateImportUser – thirdparty', () => {
  it('requires all fields', () => {
    expect(errorsOf({ loginMethods: [{ recipeId: 'thirdparty' }] })).toEqual([
      'email is required for a thirdparty recipe.',
      'thirdPartyId is required for a thirdparty recipe.',
      'thirdPartyUserId is required for a thirdparty recipe.',
    ]);
    expect(
      errorsOf({ loginMethods: [{ recipeId: 'thirdparty', email: [], thirdPartyId: [], thirdPartyUserId: [] }] }),
    ).toEqual([
      'email should be of type string for a thirdparty recipe.',
      'thirdPartyId should be of type string for a thirdparty recipe.',
      'thirdPartyUserId should be of type string for a thirdparty recipe.',
    ]);
  });

  it('checks lengths and normalises only the email', () => {
    const id = 'i'.repeat(29);
    const uid = 'u'.repeat(257);
    expect(errorsOf({ loginMethods: [tp({ thirdPartyId: id, thirdPartyUserId: uid })] })).toEqual([
      `thirdPartyId ${id} is too long. Max length is 28.`,
      `thirdPartyUserId ${uid} is too long. Max length is 256.`,
    ]);
    expect(
      userOf({ loginMethods: [tp({ email: ' A@B.C ', thirdPartyId: ' Google ', thirdPartyUserId: ' X ' })] })
        .loginMethods[0],
    ).toMatchObject({ email: 'a@b.c', thirdPartyId: ' Google ', thirdPartyUserId: ' X ' });
  });
});

describe('validateImportUser – passwordless', () => {
  it('requires an email or a phone number', () => {
    expect(errorsOf({ loginMethods: [{ recipeId: 'passwordless' }] })).toEqual([
      'Either email or phoneNumber is required for a passwordless recipe.',
    ]);
    expect(errorsOf({ loginMethods: [{ recipeId: 'passwordless', email: [], phoneNumber: [] }] })).toEqual([
      'email should be of type string for a passwordless recipe.',
      'phoneNumber should be of type string for a passwordless recipe.',
      'Either email or phoneNumber is required for a passwordless recipe.',
    ]);
  });

  it('normalises phone numbers to E.164 when parseable, else keeps them trimmed', () => {
    const lm = userOf({ loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+91-9999999999' }] }).loginMethods[0];
    expect(lm).toMatchObject({ phoneNumber: '+919999999999' });
    expect(lm).not.toHaveProperty('email');
    expect(normalisePhoneNumber(' +44 20 7946 0958 ')).toBe('+442079460958');
    expect(normalisePhoneNumber(' 9999999999 ')).toBe('9999999999');
    expect(normalisePhoneNumber('abc')).toBe('abc');
  });

  it('checks the phone length', () => {
    const phone = `+${'1'.repeat(256)}`;
    expect(errorsOf({ loginMethods: [pl({ phoneNumber: phone })] })).toEqual([
      `phoneNumber ${phone} is too long. Max length is 256.`,
    ]);
  });
});

describe('staged id and generated ids (docs/reference-behaviour.md "Staged user ids")', () => {
  it('generates a fresh superTokensUserId per login method, ignoring client-supplied ids', () => {
    const user = userOf(referenceGeneratedUser(), makeCtx({ tenants: ['public', 't1'] }));
    expect(user.loginMethods.map((lm) => lm.superTokensUserId)).toEqual(['id-1', 'id-2', 'id-3']);
    expect(user.id).toBe('id-1');
  });

  it('uses the primary login method even if it is not the oldest', () => {
    const user = userOf({
      loginMethods: [pl({ timeJoinedInMSSinceEpoch: 1 }), ep({ isPrimary: true, timeJoinedInMSSinceEpoch: 5 })],
    });
    expect(user.id).toBe('id-2');
  });

  it('otherwise uses the oldest login method, ties → first', () => {
    expect(
      userOf({
        loginMethods: [
          pl({ timeJoinedInMSSinceEpoch: 5 }),
          ep({ timeJoinedInMSSinceEpoch: 2 }),
          tp({ timeJoinedInMSSinceEpoch: 2 }),
        ],
      }).id,
    ).toBe('id-2');
    expect(
      userOf({ loginMethods: [pl({ timeJoinedInMSSinceEpoch: 3 }), ep({ timeJoinedInMSSinceEpoch: 3 })] }).id,
    ).toBe('id-1');
    expect(userOf({ loginMethods: [pl(), ep({ timeJoinedInMSSinceEpoch: NOW - 1 })] }).id).toBe('id-2');
  });

  it('getPrimaryLoginMethod and withFreshIds', () => {
    const user = userOf({ loginMethods: [pl({ timeJoinedInMSSinceEpoch: 9 }), ep({ timeJoinedInMSSinceEpoch: 3 })] });
    expect(getPrimaryLoginMethod(user.loginMethods).recipeId).toBe('emailpassword');
    let n = 100;
    const fresh = withFreshIds(user, () => `new-${++n}`);
    expect(fresh.loginMethods.map((lm) => lm.superTokensUserId)).toEqual(['new-101', 'new-102']);
    expect(fresh.id).toBe('new-102');
    expect(user.id).toBe('id-2');
  });

  it('idMode readStored reads superTokensUserId (required, suffix without dot)', () => {
    const ctx = makeCtx();
    const ok = validateImportUser({ loginMethods: [pl({ superTokensUserId: 'stored-1' })] }, ctx, {
      idMode: 'readStored',
    });
    expect(ok).toMatchObject({ ok: true, user: { id: 'stored-1' } });
    expect(validateImportUser({ loginMethods: [pl()] }, ctx, { idMode: 'readStored' })).toEqual({
      ok: false,
      errors: ['superTokensUserId is required for a loginMethod'],
    });
  });
});

describe('ImportUserTest cases (validation part)', () => {
  it('unknown roles and unknown tenant t1 give the exact reference error list', () => {
    const ctx = makeCtx({ roles: [], tenants: ['public'] });
    expect(errorsOf(referenceGeneratedUser(), ctx)).toEqual(UNKNOWN_ROLES_AND_TENANT_T1_ERRORS);
  });

  it('valid users: full, without roles, one login method, bare minimum', () => {
    const ctx = makeCtx();
    const full = userOf(referenceGeneratedUser(), ctx);
    expect(full.userRoles).toEqual([
      { role: 'role1', tenantIds: ['public', 't1'] },
      { role: 'role2', tenantIds: ['public', 't1'] },
    ]);
    expect(full.externalUserId).toBe('external-0');
    expect(userOf(referenceGeneratedUser(['public'], []), ctx).userRoles).toEqual([]);
    expect(
      userOf({
        id: 'random-id-lol',
        externalUserId: 'random',
        userRoles: [],
        totpDevices: [],
        loginMethods: [
          ep({ email: 'test@testing.com', passwordHash: '$2a', hashingAlgorithm: 'BCRYPT', isVerified: true }),
        ],
      }).loginMethods,
    ).toHaveLength(1);
    const bare = userOf({ loginMethods: [ep({ passwordHash: '$2a', hashingAlgorithm: 'BCRYPT' })] });
    expect(bare).toEqual({
      id: 'id-1',
      userRoles: [],
      totpDevices: [],
      loginMethods: [
        {
          tenantIds: ['public'],
          isVerified: false,
          isPrimary: false,
          timeJoinedInMSSinceEpoch: NOW,
          recipeId: 'emailpassword',
          email: 'john@example.com',
          passwordHash: '$2a',
          hashingAlgorithm: 'BCRYPT',
          superTokensUserId: 'id-1',
        },
      ],
    });
  });

  it('with only multitenancy: non-primary users with roles on public+t1 and no totp validate', () => {
    const ctx = makeCtx({ features: { accountLinking: false, mfa: false } });
    const user = userOf(
      {
        userRoles: [{ role: 'role1', tenantIds: ['public', 't1'] }],
        loginMethods: [ep({ tenantIds: ['public', 't1'], isPrimary: false })],
      },
      ctx,
    );
    expect(user.userRoles[0]?.tenantIds).toEqual(['public', 't1']);
  });

  it('serialises in the reference key order', () => {
    const user = userOf({
      externalUserId: 'e',
      userMetadata: { k: 'v' },
      totpDevices: [{ secretKey: 's', deviceName: 'd' }],
      userRoles: [{ role: 'role1', tenantIds: ['public'] }],
      loginMethods: [tp({ isPrimary: true, isVerified: true, timeJoinedInMSSinceEpoch: 7 })],
    });
    expect(JSON.stringify(user)).toBe(
      '{"id":"id-1","externalUserId":"e","userMetadata":{"k":"v"},"userRoles":[{"role":"role1","tenantIds":["public"]}],' +
        '"totpDevices":[{"secretKey":"s","period":30,"skew":1,"deviceName":"d"}],' +
        '"loginMethods":[{"tenantIds":["public"],"isVerified":true,"isPrimary":true,"timeJoinedInMSSinceEpoch":7,' +
        '"recipeId":"thirdparty","email":"john@example.com","thirdPartyId":"google","thirdPartyUserId":"112618388912586834161",' +
        '"superTokensUserId":"id-1"}]}',
    );
  });
});

describe('non-object input', () => {
  it('deliberate difference: a non-object user is reported, not a crash', () => {
    for (const raw of [null, 'x', 1, [], true]) {
      expect(validateImportUser(raw, makeCtx())).toEqual({ ok: false, errors: ['user should be of type object.'] });
    }
  });
});

describe('values that could never be stored are refused by validation (all three import paths run it)', () => {
  const nested = (depth: number): Record<string, unknown> => {
    let value: Record<string, unknown> = {};
    for (let level = 1; level < depth; level++) value = { a: value };
    return value;
  };

  it('integers beyond what the field holds: TOTP period and skew are 32-bit, times safe integers', () => {
    const device = (extra: Record<string, unknown>) => ({ secretKey: 'JBSWY3DPEHPK3PXP', ...extra });
    for (const period of [1e308, 2 ** 31, -(2 ** 31), 2 ** 60]) {
      expect(errorsOf({ totpDevices: [device({ period })], loginMethods: [pl()] })).toContain(
        'period should be of type integer for a totp device.',
      );
    }
    expect(errorsOf({ totpDevices: [device({ skew: 1e20 })], loginMethods: [pl()] })).toEqual([
      'skew should be of type integer for a totp device.',
    ]);
    const max = userOf({ totpDevices: [device({ period: 2 ** 31 - 1, skew: 2 ** 31 - 1 })], loginMethods: [pl()] });
    expect(max.totpDevices[0]).toMatchObject({ period: 2 ** 31 - 1, skew: 2 ** 31 - 1 });
    expect(errorsOf({ loginMethods: [pl({ timeJoinedInMSSinceEpoch: -1e300 })] })).toEqual([
      'timeJoinedInMSSinceEpoch should be of type integer for a loginMethod',
    ]);
  });

  it('metadata deeper than 32 levels or larger than 350,000 bytes of JSON', () => {
    expect(userOf({ userMetadata: nested(32), loginMethods: [pl()] }).userMetadata).toEqual(nested(32));
    expect(errorsOf({ userMetadata: nested(33), loginMethods: [pl()] })).toEqual([
      'userMetadata is nested too deeply. Max depth is 32.',
    ]);
    expect(errorsOf({ userMetadata: nested(5000), loginMethods: [pl()] })).toEqual([
      'userMetadata is nested too deeply. Max depth is 32.',
    ]);
    expect(errorsOf({ userMetadata: { a: [[[[[[nested(27)]]]]]] }, loginMethods: [pl()] })).toEqual([
      'userMetadata is nested too deeply. Max depth is 32.',
    ]);
    const big = { text: 'x'.repeat(350_000 - '{"text":""}'.length) };
    expect(userOf({ userMetadata: big, loginMethods: [pl()] }).userMetadata).toEqual(big);
    expect(errorsOf({ userMetadata: { ...big, b: 1 }, loginMethods: [pl()] })).toEqual([
      'userMetadata is too large. Max size is 350000 bytes.',
    ]);
  });
});

describe('what one user gives twice', () => {
  it('a role given twice is assigned once, in the union of its tenants', () => {
    const user = userOf({
      userRoles: [
        { role: 'role1', tenantIds: ['public'] },
        { role: 'role2', tenantIds: ['public'] },
        { role: 'role1', tenantIds: ['t1', 'public'] },
      ],
      loginMethods: [pl({ tenantIds: ['public', 't1'] })],
    });
    expect(user.userRoles).toEqual([
      { role: 'role1', tenantIds: ['public', 't1'] },
      { role: 'role2', tenantIds: ['public'] },
    ]);
  });

  it('two TOTP devices of one name are refused (they could never both be imported)', () => {
    const device = (deviceName: string) => ({ secretKey: 'JBSWY3DPEHPK3PXP', deviceName });
    expect(errorsOf({ totpDevices: [device('phone'), device(' phone ')], loginMethods: [pl()] })).toEqual([
      'E036: A TOTP device named phone already exists for this user.',
    ]);
    expect(
      userOf({
        totpDevices: [device('phone'), device('tablet'), { secretKey: 'JBSWY3DPEHPK3PXP' }],
        loginMethods: [pl()],
      }).totpDevices,
    ).toHaveLength(3);
  });
});
