import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importActionsAtMost, importPlan, importRecords } from '#functions/domain/import/import-user.js';
import type { ImportLoginMethod, ImportUser } from '#functions/domain/import/types.js';
import { tableNamed } from '#functions/storage/kit/index.js';
import { createUserStore } from '#functions/storage/users/store.js';

/** The real write builder (no I/O until a commit): what a user's import from staging consists of. */
const store = createUserStore(tableNamed('size-test'));
const actionsOf = (user: ImportUser) => {
  const write = store.newWrite('app');
  write.add(importPlan(user, importRecords(user)), { importedStagedRows: [user.id] });
  return write.actionCount;
};

const TENANTS = ['public', 't1', 't2', 't3', 't4', 't5', 't6', 't7'];
const tenantIds = fc.subarray(TENANTS, { minLength: 1 });
const loginMethod = (index: number, primary: boolean) =>
  fc
    .record({
      kind: fc.constantFrom(
        'emailpassword',
        'thirdparty',
        'passwordless-email',
        'passwordless-both',
        'passwordless-phone',
      ),
      tenantIds,
    })
    .map(({ kind, tenantIds }): ImportLoginMethod => {
      const base = {
        tenantIds,
        isVerified: false,
        isPrimary: primary,
        timeJoinedInMSSinceEpoch: 1,
        superTokensUserId: `id-${index}`,
      };
      switch (kind) {
        case 'emailpassword':
          return { ...base, recipeId: 'emailpassword', email: `e${index}@x.io`, passwordHash: '$2a$04$x' };
        case 'thirdparty':
          return {
            ...base,
            recipeId: 'thirdparty',
            email: `e${index}@x.io`,
            thirdPartyId: 'google',
            thirdPartyUserId: `${index}`,
          };
        case 'passwordless-email':
          return { ...base, recipeId: 'passwordless', email: `e${index}@x.io` };
        case 'passwordless-phone':
          return { ...base, recipeId: 'passwordless', phoneNumber: `+1415555${index}` };
        default:
          return { ...base, recipeId: 'passwordless', email: `e${index}@x.io`, phoneNumber: `+1415555${index}` };
      }
    });

const user: fc.Arbitrary<ImportUser> = fc
  .record({
    linked: fc.boolean(),
    methods: fc.integer({ min: 1, max: 6 }),
    externalUserId: fc.option(fc.constant('ext'), { nil: undefined }),
    metadata: fc.boolean(),
    roles: fc.array(tenantIds, { maxLength: 4 }),
    devices: fc.nat({ max: 4 }),
  })
  .chain(({ linked, methods, externalUserId, metadata, roles, devices }) =>
    fc.tuple(...Array.from({ length: methods }, (_, i) => loginMethod(i, linked && i === 0))).map(
      (loginMethods): ImportUser => ({
        id: 'id-0',
        ...(externalUserId ? { externalUserId } : {}),
        ...(metadata ? { userMetadata: { a: 1 } } : {}),
        userRoles: roles.map((tenants, i) => ({ role: `r${i}`, tenantIds: tenants })),
        totpDevices: Array.from({ length: devices }, (_, i) => ({
          secretKey: 's',
          period: 30,
          skew: 1,
          deviceName: `d${i}`,
        })),
        loginMethods,
      }),
    ),
  );

describe('the bound staging uses before it counts a user’s actions', () => {
  it('is never below the actions of the write itself', () => {
    fc.assert(
      fc.property(user, (u) => {
        expect(actionsOf(u)).toBeLessThanOrEqual(importActionsAtMost(u));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the primary checks of a write of users who are not primary', () => {
  const plain = (n: number): ImportUser => ({
    id: `id-${n}`,
    userRoles: [],
    totpDevices: [],
    loginMethods: [
      {
        recipeId: 'passwordless',
        email: `p${n}@x.io`,
        tenantIds: ['public', 't1'],
        isVerified: false,
        isPrimary: false,
        timeJoinedInMSSinceEpoch: 1,
        superTokensUserId: `id-${n}`,
      },
    ],
  });
  const write = (mode: 'each' | 'guard') => {
    const w = store.newWrite('app', { primaryChecks: mode });
    for (const n of [1, 2, 3])
      w.add(importPlan(plain(n), importRecords(plain(n))), { importedStagedRows: [`id-${n}`] });
    return w;
  };

  it("are one check of the app's primary-users guard instead of one per account info and tenant", () => {
    // Three users, each checked in two tenants: six checks, or one.
    expect(write('each').actionCount - write('guard').actionCount).toBe(6 - 1);
  });

  it('a write that creates a primary user also sets the guard', () => {
    const primary: ImportUser = {
      ...plain(4),
      loginMethods: [{ ...(plain(4).loginMethods[0] as ImportLoginMethod), isPrimary: true }],
    };
    const actions = (u: ImportUser) => {
      const w = store.newWrite('app');
      w.add(importPlan(u, importRecords(u)));
      return w.actionCount;
    };
    // Its two reservations take the place of the two checks the same user makes when not
    // primary; the guard's update is the one more action.
    expect(actions(primary)).toBe(actions(plain(4)) + 1);
  });
});
