import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_USERS_PER_STAGING_REQUEST } from '#functions/contract/import-payload.js';
import {
  buildStagingSuccessBody,
  EMPTY_STAGING_RESPONSE_BODY,
  INVALID_USERS_ERROR_MESSAGE,
  precheckStagingBody,
  stagingUsersOf,
  TOO_MANY_USERS_ERROR_BODY,
  USERS_FIELD_INVALID_MESSAGE,
  validateSingleImport,
  validateStagingRequest as validateStagingUsers,
} from '#functions/domain/bulk-import/validate-request.js';
import type { ImportValidationContext } from '#functions/domain/bulk-import/validate-user.js';
import { UNKNOWN_ROLES_AND_TENANT_T1_ERRORS } from '../fixtures/import-users.js';

const NOW = 1_750_000_000_000;

/** A `POST /bulk-import/users` body as the handler validates it: its checks, then its users. */
const validateStagingRequest = (body: unknown, ctx: ImportValidationContext) =>
  validateStagingUsers(stagingUsersOf(body), ctx);
const GENERIC = INVALID_USERS_ERROR_MESSAGE;

function makeCtx(
  features: Partial<ImportValidationContext['features']> = {},
  roles: string[] = ['role1', 'role2'],
  tenants: string[] = ['public', 't1'],
  newId: () => string = (() => {
    let n = 0;
    return () => `id-${++n}`;
  })(),
): ImportValidationContext {
  const roleSet = new Set(roles);
  const tenantSet = new Set(tenants);
  return {
    now: NOW,
    newId,
    roleExists: (role) => roleSet.has(role),
    tenantExists: (tenantId) => tenantSet.has(tenantId),
    features: { accountLinking: true, mfa: true, ...features },
    firebaseSignerKeyConfigured: false,
  };
}

/** The 400 body as text, the way the endpoint sends it. */
function errorText(body: unknown, ctx = makeCtx()): string {
  const result = validateStagingRequest(body, ctx);
  if (result.ok) throw new Error('expected the request to be rejected');
  return JSON.stringify(result.body);
}

const invalid = (entries: { index: number; errors: string[] }[]) => JSON.stringify({ error: GENERIC, users: entries });

/** A request of one user: a primary emailpassword login method and a passwordless one (with `passwordless`' fields). */
const primaryAndPasswordless = (passwordless: Record<string, unknown> = {}) => ({
  users: [
    {
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'johndoe@gmail.com',
          passwordHash: '$2a',
          hashingAlgorithm: 'bcrypt',
          isPrimary: true,
        },
        { recipeId: 'passwordless', email: 'johndoe@gmail.com', ...passwordless },
      ],
    },
  ],
});

/** The reference test's generated staging user (3 login methods, roles on public, one totp device). */
function generatedUser(i: number) {
  const email = ` johndoe+${i}@gmail.com `;
  const tenantIds = ['public'];
  return {
    externalUserId: randomUUID() as string,
    userMetadata: { key1: 'value1', key2: { key3: 'value3' } },
    userRoles: [
      { role: 'role1', tenantIds: ['public'] },
      { role: 'role2', tenantIds: ['public'] },
    ],
    totpDevices: [{ secretKey: 'secretKey', deviceName: 'deviceName' }],
    loginMethods: [
      {
        tenantIds,
        email,
        recipeId: 'emailpassword',
        passwordHash: '$argon2d$v=19$m=12,t=3,p=1$aGI4enNvMmd0Zm0wMDAwMA$r6p7qbr6HD+8CD7sBi4HVw',
        hashingAlgorithm: 'argon2',
        isVerified: true,
        isPrimary: true,
        timeJoinedInMSSinceEpoch: 0,
      },
      {
        tenantIds,
        recipeId: 'thirdparty',
        email,
        thirdPartyId: 'google',
        thirdPartyUserId: '112618388912586834161',
        isVerified: true,
        isPrimary: false,
        timeJoinedInMSSinceEpoch: 0,
      },
      {
        tenantIds,
        email,
        recipeId: 'passwordless',
        phoneNumber: '+91-9999999999',
        isVerified: true,
        isPrimary: false,
        timeJoinedInMSSinceEpoch: 0,
      },
    ],
  };
}

describe('precheckStagingBody (docs/reference-behaviour.md "Staging users")', () => {
  it('rejects a missing or non-array users field', () => {
    expect(precheckStagingBody({})).toEqual({ kind: 'usersFieldInvalid', message: USERS_FIELD_INVALID_MESSAGE });
    expect(precheckStagingBody({ users: 'string' })).toEqual({
      kind: 'usersFieldInvalid',
      message: "Field name 'users' is invalid in JSON input",
    });
    expect(precheckStagingBody({ users: null }).kind).toBe('usersFieldInvalid');
  });

  it('short-circuits an empty list', () => {
    expect(precheckStagingBody({ users: [] })).toEqual({ kind: 'empty' });
    expect(EMPTY_STAGING_RESPONSE_BODY).toEqual({ status: 'OK' });
  });

  it('rejects more than 10000 users', () => {
    expect(MAX_USERS_PER_STAGING_REQUEST).toBe(10_000);
    const result = precheckStagingBody({ users: new Array(10_001).fill({}) });
    expect(result).toEqual({ kind: 'tooManyUsers', body: TOO_MANY_USERS_ERROR_BODY });
    expect(JSON.stringify(TOO_MANY_USERS_ERROR_BODY)).toBe('{"error":"You can only add 10000 users at a time."}');
    expect(precheckStagingBody({ users: new Array(10_000).fill({}) }).kind).toBe('ok');
  });
});

describe('validateStagingRequest – AddBulkImportUsersTest cases', () => {
  it('loginMethods missing / wrong type / empty', () => {
    expect(errorText({ users: [{}] })).toBe(invalid([{ index: 0, errors: ['loginMethods is required.'] }]));
    expect(errorText({ users: [{ loginMethods: 'string' }] })).toBe(
      invalid([{ index: 0, errors: ['loginMethods should be of type array of object.'] }]),
    );
    expect(errorText({ users: [{ loginMethods: [] }] })).toBe(
      invalid([{ index: 0, errors: ['At least one loginMethod is required.'] }]),
    );
  });

  it('wrong-typed optional fields', () => {
    expect(errorText({ users: [{ externalUserId: [], userMetaData: [], userRoles: {}, totpDevices: {} }] })).toBe(
      '{"error":"Data has missing or invalid fields. Please check the users field for more details.","users":[{"index":0,"errors":["externalUserId should be of type string.","userRoles should be of type array of object.","totpDevices should be of type array of object.","loginMethods is required."]}]}',
    );
  });

  it('non-unique externalUserId', () => {
    expect(errorText({ users: [{ externalUserId: 'id1' }, { externalUserId: 'id1' }] })).toBe(
      '{"error":"Data has missing or invalid fields. Please check the users field for more details.","users":[{"index":0,"errors":["loginMethods is required."]},{"index":1,"errors":["loginMethods is required.","externalUserId id1 is not unique. It is already used by another user."]}]}',
    );
  });

  it('totp devices', () => {
    const body = { users: [{ totpDevices: [{ secret: 'secret' }] }] };
    expect(errorText(body, makeCtx({ mfa: false, accountLinking: false }))).toBe(
      invalid([{ index: 0, errors: ['MFA must be enabled to import totp devices.', 'loginMethods is required.'] }]),
    );
    expect(errorText(body, makeCtx({ mfa: true, accountLinking: false }))).toBe(
      invalid([{ index: 0, errors: ['secretKey is required for a totp device.', 'loginMethods is required.'] }]),
    );
  });

  it('user roles', () => {
    const ctx = makeCtx({}, ['role1']);
    expect(errorText({ users: [{ userRoles: [{ role: 'role1' }] }] }, ctx)).toBe(
      invalid([{ index: 0, errors: ['tenantIds is required for a user role.', 'loginMethods is required.'] }]),
    );
    expect(errorText({ users: [{ userRoles: [{ role: 'role5', tenantIds: ['public'] }] }] }, ctx)).toBe(
      invalid([{ index: 0, errors: ['Role role5 does not exist.', 'loginMethods is required.'] }]),
    );
  });

  it('login method field types and recipeId', () => {
    expect(
      errorText({
        users: [
          {
            loginMethods: [
              { recipeId: [], tenantIds: {}, isPrimary: [], isVerified: [], timeJoinedInMSSinceEpoch: [] },
            ],
          },
        ],
      }),
    ).toBe(
      '{"error":"Data has missing or invalid fields. Please check the users field for more details.","users":[{"index":0,"errors":["recipeId should be of type string for a loginMethod.","tenantIds should be of type array of string for a loginMethod.","isVerified should be of type boolean for a loginMethod.","isPrimary should be of type boolean for a loginMethod.","timeJoinedInMSSinceEpoch should be of type integer for a loginMethod"]}]}',
    );
    expect(errorText({ users: [{ loginMethods: [{ recipeId: 'invalid_recipe_id' }] }] })).toBe(
      invalid([
        {
          index: 0,
          errors: ['Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!'],
        },
      ]),
    );
  });

  it('emailpassword, thirdparty and passwordless field errors', () => {
    const either =
      'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.';
    expect(errorText({ users: [{ loginMethods: [{ recipeId: 'emailpassword' }] }] })).toBe(
      invalid([{ index: 0, errors: ['email is required for an emailpassword recipe.', either] }]),
    );
    expect(
      errorText({
        users: [{ loginMethods: [{ recipeId: 'emailpassword', email: [], passwordHash: [], hashingAlgorithm: [] }] }],
      }),
    ).toBe(
      invalid([
        {
          index: 0,
          errors: [
            'email should be of type string for an emailpassword recipe.',
            'passwordHash should be of type string for an emailpassword recipe.',
            'hashingAlgorithm should be of type string for an emailpassword recipe.',
            either,
          ],
        },
      ]),
    );
    expect(
      errorText({
        users: [
          {
            loginMethods: [
              {
                recipeId: 'emailpassword',
                email: 'johndoe@gmail.com',
                passwordHash: '$2a',
                hashingAlgorithm: 'invalid_algorithm',
              },
            ],
          },
        ],
      }),
    ).toBe(
      invalid([
        {
          index: 0,
          errors: [
            'Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2, firebase_scrypt, pbkdf2, scrypt, phpass, md5, sha1, sha256, sha512 or, ldap!',
          ],
        },
      ]),
    );
    expect(errorText({ users: [{ loginMethods: [{ recipeId: 'thirdparty' }] }] })).toBe(
      invalid([
        {
          index: 0,
          errors: [
            'email is required for a thirdparty recipe.',
            'thirdPartyId is required for a thirdparty recipe.',
            'thirdPartyUserId is required for a thirdparty recipe.',
          ],
        },
      ]),
    );
    expect(
      errorText({
        users: [{ loginMethods: [{ recipeId: 'thirdparty', email: [], thirdPartyId: [], thirdPartyUserId: [] }] }],
      }),
    ).toBe(
      invalid([
        {
          index: 0,
          errors: [
            'email should be of type string for a thirdparty recipe.',
            'thirdPartyId should be of type string for a thirdparty recipe.',
            'thirdPartyUserId should be of type string for a thirdparty recipe.',
          ],
        },
      ]),
    );
    expect(errorText({ users: [{ loginMethods: [{ recipeId: 'passwordless' }] }] })).toBe(
      invalid([{ index: 0, errors: ['Either email or phoneNumber is required for a passwordless recipe.'] }]),
    );
    expect(errorText({ users: [{ loginMethods: [{ recipeId: 'passwordless', email: [], phoneNumber: [] }] }] })).toBe(
      invalid([
        {
          index: 0,
          errors: [
            'email should be of type string for a passwordless recipe.',
            'phoneNumber should be of type string for a passwordless recipe.',
            'Either email or phoneNumber is required for a passwordless recipe.',
          ],
        },
      ]),
    );
  });

  it('multiple login methods without account linking', () => {
    const body = primaryAndPasswordless();
    expect(errorText(body, makeCtx({ accountLinking: false, mfa: false }))).toBe(
      invalid([{ index: 0, errors: ['Account linking must be enabled to import multiple loginMethods.'] }]),
    );
  });

  it('invalid tenant ids', () => {
    const body = {
      users: [{ loginMethods: [{ tenantIds: ['invalid'], recipeId: 'passwordless', email: 'johndoe@gmail.com' }] }],
    };
    expect(errorText(body, makeCtx({ multitenancy: false }))).toBe(
      invalid([{ index: 0, errors: ['Multitenancy must be enabled before importing users to a different tenant.'] }]),
    );
    expect(errorText(body, makeCtx({ accountLinking: true }))).toBe(
      invalid([{ index: 0, errors: ['Invalid tenantId: invalid for passwordless recipe.'] }]),
    );
    // One database per app here: the reference's "share the same database" case is valid.
    const spread = {
      users: [
        {
          loginMethods: [
            { tenantIds: ['public'], recipeId: 'passwordless', email: 'johndoe@gmail.com' },
            {
              tenantIds: ['t2'],
              recipeId: 'thirdparty',
              email: 'johndoe@gmail.com',
              thirdPartyId: 'id',
              thirdPartyUserId: 'id',
            },
          ],
        },
      ],
    };
    expect(validateStagingRequest(spread, makeCtx({}, [], ['public', 't1', 't2'])).ok).toBe(true);
  });

  it('two primary login methods', () => {
    const body = primaryAndPasswordless({ isPrimary: true });
    expect(errorText(body, makeCtx({ accountLinking: true, multitenancy: true }))).toBe(
      invalid([{ index: 0, errors: ['No two loginMethods can have isPrimary as true.'] }]),
    );
  });

  it('10000 valid users with 3 login methods each and only MFA', () => {
    const users = Array.from({ length: 10_000 }, (_, i) => generatedUser(i));
    // Counter ids keep the test about validation cost (the production newId is crypto.randomUUID).
    const result = validateStagingRequest({ users }, makeCtx({ accountLinking: false, mfa: true }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.users).toHaveLength(10_000);
    expect(result.users[9_999]?.loginMethods).toHaveLength(3);
    const body = buildStagingSuccessBody(result.users);
    expect(body.status).toBe('OK');
    expect(body.users).toHaveLength(10_000);
    expect(body.users[42]?.userId).toBe(users[42]?.externalUserId);
  }, 60_000);

  it('normalises fields (GET view) and reports userId in the POST response', () => {
    const result = validateStagingRequest({ users: [generatedUser(0)] }, makeCtx({ mfa: true, accountLinking: false }));
    if (!result.ok) throw new Error(JSON.stringify(result.body));
    const [user] = result.users;
    expect(user?.totpDevices).toEqual([{ secretKey: 'secretKey', period: 30, skew: 1, deviceName: 'deviceName' }]);
    for (const lm of user?.loginMethods ?? []) {
      expect(lm.email).toBe('johndoe+0@gmail.com');
      if (lm.recipeId === 'passwordless') expect(lm.phoneNumber).toBe('+919999999999');
      if (lm.recipeId === 'emailpassword') expect(lm.hashingAlgorithm).toBe('ARGON2');
    }
    const body = buildStagingSuccessBody(result.users);
    expect(body.users[0]).toHaveProperty('userId');
  });
});

describe('validateStagingRequest – BulkImportFlowTest cases', () => {
  it('duplicate externalUserId at index 0 and 19: only index 19 is reported', () => {
    const users = Array.from({ length: 20 }, (_, i) => generatedUser(i));
    users[0]!.externalUserId = 'some-text-external-id';
    users[19]!.externalUserId = 'some-text-external-id';
    expect(errorText({ users })).toBe(
      invalid([
        {
          index: 19,
          errors: ['externalUserId some-text-external-id is not unique. It is already used by another user.'],
        },
      ]),
    );
  });

  it('externalUserId:false', () => {
    const user = { ...generatedUser(0), externalUserId: false };
    expect(errorText({ users: [user] })).toBe(
      '{"error":"Data has missing or invalid fields. Please check the users field for more details.","users":[{"index":0,"errors":["externalUserId should be of type string."]}]}',
    );
  });

  it('missing role2', () => {
    const users = [generatedUser(0), generatedUser(1)];
    expect(errorText({ users }, makeCtx({}, ['role1']))).toBe(
      invalid([
        { index: 0, errors: ['Role role2 does not exist.'] },
        { index: 1, errors: ['Role role2 does not exist.'] },
      ]),
    );
  });

  it('uniqueness also counts invalid users and uses the exact raw value', () => {
    const users = [
      { externalUserId: 'dup' },
      { ...generatedUser(1), externalUserId: 'dup' },
      { ...generatedUser(2), externalUserId: ' dup' },
    ];
    expect(errorText({ users })).toBe(
      invalid([
        { index: 0, errors: ['loginMethods is required.'] },
        { index: 1, errors: ['externalUserId dup is not unique. It is already used by another user.'] },
      ]),
    );
  });

  it('deliberate difference: non-object elements of users are reported at their index', () => {
    expect(errorText({ users: [generatedUser(0), 'x', null, [], generatedUser(1)] })).toBe(
      invalid([
        { index: 1, errors: ['user should be of type object.'] },
        { index: 2, errors: ['user should be of type object.'] },
        { index: 3, errors: ['user should be of type object.'] },
      ]),
    );
  });

  it('never validates a body without a users array: its check answers first', () => {
    expect(() => validateStagingRequest({}, makeCtx())).toThrow(USERS_FIELD_INVALID_MESSAGE);
  });
});

describe('buildStagingSuccessBody', () => {
  it('builds the reference response shape per recipe', () => {
    const result = validateStagingRequest(
      {
        users: [
          {
            loginMethods: [
              { recipeId: 'emailpassword', email: 'A@B.C', plainTextPassword: 'pw', tenantIds: ['public', 'T1'] },
              { recipeId: 'thirdparty', email: 'a@b.c', thirdPartyId: 'google', thirdPartyUserId: 'g-1' },
              { recipeId: 'passwordless', phoneNumber: '+1 650 555 0101', isPrimary: true },
            ],
          },
          { externalUserId: ' ext ', loginMethods: [{ recipeId: 'passwordless', email: 'x@y.z' }] },
        ],
      },
      makeCtx(),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.body));
    expect(JSON.stringify(buildStagingSuccessBody(result.users))).toBe(
      JSON.stringify({
        status: 'OK',
        users: [
          {
            userId: 'id-3',
            loginMethods: [
              { recipeId: 'emailpassword', userId: 'id-1', tenants: ['public', 't1'], email: 'a@b.c' },
              {
                recipeId: 'thirdparty',
                userId: 'id-2',
                tenants: ['public'],
                email: 'a@b.c',
                thirdpartyId: 'google',
                thirdpartyUserId: 'g-1',
              },
              {
                recipeId: 'passwordless',
                userId: 'id-3',
                tenants: ['public'],
                email: null,
                phoneNumber: '+16505550101',
              },
            ],
          },
          {
            userId: 'ext',
            loginMethods: [
              { recipeId: 'passwordless', userId: 'id-4', tenants: ['public'], email: 'x@y.z', phoneNumber: null },
            ],
          },
        ],
      }),
    );
  });
});

describe('validateSingleImport – ImportUserTest / BulkImportFlowTest cases', () => {
  it('unknown recipeId', () => {
    const result = validateSingleImport({ loginMethods: [{ recipeId: 'unknown' }] }, makeCtx());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(JSON.stringify(result.body)).toBe(
      '{"errors":["Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!"]}',
    );
  });

  it('unknown roles and tenant t1', () => {
    const tenants = ['public', 't1'];
    const lm = { tenantIds: tenants, isVerified: true, timeJoinedInMSSinceEpoch: NOW - 1 };
    const body = {
      id: 'ignored',
      externalUserId: 'e-1',
      userMetadata: { key1: 'v' },
      userRoles: [
        { role: 'role1', tenantIds: tenants },
        { role: 'role2', tenantIds: tenants },
      ],
      totpDevices: [{ secretKey: 'secretKey', period: 30, skew: 1, deviceName: 'deviceName' }],
      loginMethods: [
        {
          ...lm,
          isPrimary: true,
          recipeId: 'emailpassword',
          email: 'u@e.com',
          passwordHash: '$2a',
          hashingAlgorithm: 'BCRYPT',
        },
        { ...lm, recipeId: 'thirdparty', email: 'u@e.com', thirdPartyId: 'tp0', thirdPartyUserId: 'tpu0' },
        { ...lm, recipeId: 'passwordless', email: 'u@e.com' },
      ],
    };
    const result = validateSingleImport(body, makeCtx({}, [], ['public']));
    expect(result).toEqual({
      ok: false,
      body: {
        errors: UNKNOWN_ROLES_AND_TENANT_T1_ERRORS,
      },
    });
    expect(validateSingleImport(body, makeCtx()).ok).toBe(true);
  });

  it('importing the same body twice validates twice (no cross-request uniqueness)', () => {
    const ctx = makeCtx();
    const body = { externalUserId: 'x', loginMethods: [{ recipeId: 'passwordless', email: 'a@b.c' }] };
    expect(validateSingleImport(body, ctx).ok).toBe(true);
    expect(validateSingleImport(body, ctx).ok).toBe(true);
  });

  it('non-object body', () => {
    expect(validateSingleImport([], makeCtx())).toEqual({
      ok: false,
      body: { errors: ['user should be of type object.'] },
    });
  });
});
