/**
 * A staged row says in its type whether it holds credentials (functions/domain/bulk-import/
 * staging-ports.ts): what `get` and `list` return (StagedRow) cannot carry a password, a hash or a
 * TOTP secret, so a claimed row (ClaimedRow, credentials opened for the import) can never be
 * listed or logged as one by mistake. These are compile-time checks (`npm run typecheck`), with
 * the runtime half: the store's reads strip credentials whatever a row holds.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ClaimedRow, ClearImportUser, StagedRow } from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import { fromItem } from '#functions/storage/staging/rows.js';

describe('staged row types', () => {
  it('a listed row cannot hold a claimed row’s credentials; a claimed row is not a listed one', () => {
    expectTypeOf<ImportUser>().not.toExtend<ClearImportUser>();
    expectTypeOf<ClaimedRow>().not.toExtend<StagedRow>();
    expectTypeOf<StagedRow['user']['loginMethods'][number]>().toHaveProperty('recipeId');
    expectTypeOf<Extract<StagedRow['user']['loginMethods'][number], { recipeId: 'emailpassword' }>>()
      .toHaveProperty('passwordHash')
      .toEqualTypeOf<undefined>();
    expectTypeOf<StagedRow['user']['totpDevices'][number]>().toHaveProperty('secretKey').toEqualTypeOf<undefined>();
  });

  it('a row read as a StagedRow has its credentials left out, even one that stored them in clear', () => {
    const stored = {
      id: 'u1',
      userRoles: [],
      totpDevices: [{ secretKey: 'TOTP-SECRET', period: 30, skew: 1 }],
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'a@b.c',
          plainTextPassword: 'plain-pw',
          passwordHash: '$2a$10$hash',
          tenantIds: ['public'],
          isVerified: false,
          isPrimary: false,
          timeJoinedInMSSinceEpoch: 1,
          superTokensUserId: 'u1',
        },
      ],
    };
    const row = fromItem({
      appId: 'a',
      id: 'u1',
      status: 'NEW',
      user: JSON.stringify(stored),
      createdAt: 1,
      updatedAt: 1,
      sentAt: 1,
    });
    const text = JSON.stringify(row);
    for (const secret of ['TOTP-SECRET', 'plain-pw', '$2a$10$hash']) expect(text).not.toContain(secret);
    expect(row.user.loginMethods[0]).toMatchObject({ recipeId: 'emailpassword', email: 'a@b.c' });
    expect(row.user.totpDevices).toEqual([{ period: 30, skew: 1 }]);
  });
});
