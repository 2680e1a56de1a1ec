import { describe, expect, it } from 'vitest';
import { importPlan, importRecords, importUser, messageFor } from '#functions/domain/import/import-user.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import type {
  CompanionWrites,
  UserStore,
  UserWrite,
  UserWritePlan,
  WriteResult,
} from '#functions/domain/users/ports.js';

const lm = (recipeId: 'emailpassword' | 'thirdparty', id: string, time: number, isPrimary = false) =>
  recipeId === 'emailpassword'
    ? {
        recipeId,
        email: 'a@x.com',
        plainTextPassword: 'pw',
        tenantIds: ['public'],
        isVerified: true,
        isPrimary,
        timeJoinedInMSSinceEpoch: time,
        superTokensUserId: id,
      }
    : {
        recipeId,
        email: 'a@x.com',
        thirdPartyId: 'g',
        thirdPartyUserId: id,
        tenantIds: ['public', 't1'],
        isVerified: false,
        isPrimary,
        timeJoinedInMSSinceEpoch: time,
        superTokensUserId: id,
      };

const user = (primary: boolean, extra: Partial<ImportUser> = {}): ImportUser => ({
  id: 'p1',
  externalUserId: 'ext',
  userRoles: [{ role: 'r', tenantIds: ['public', 't1'] }],
  totpDevices: [{ secretKey: 'S', period: 30, skew: 1 }],
  userMetadata: { a: 1 },
  loginMethods: [lm('emailpassword', 'p1', 20, primary) as never, lm('thirdparty', 'p2', 5) as never],
  ...extra,
});

/** A users store whose writes have `actions` actions per plan and commit with `results`, in order. */
function fakeStore(results: WriteResult[], actions = 10): UserStore & { plans: UserWritePlan[] } {
  const plans: UserWritePlan[] = [];
  const newWrite = (): UserWrite & { added: { plan: UserWritePlan; companions?: CompanionWrites }[] } => {
    const added: { plan: UserWritePlan; companions?: CompanionWrites }[] = [];
    return {
      added,
      get actionCount() {
        return added.length * actions;
      },
      add(plan, companions, limit) {
        if (limit !== undefined && (added.length + 1) * actions > limit) return false;
        added.push({ plan, ...(companions ? { companions } : {}) });
        return true;
      },
    };
  };
  return {
    plans,
    newWrite,
    primaryCheckMode: async () => 'each',
    commit: async (write: ReturnType<typeof newWrite>) => {
      plans.push(...write.added.map((a) => a.plan));
      return results.shift() ?? { ok: true };
    },
  } as unknown as UserStore & { plans: UserWritePlan[] };
}

const CONFIG = {
  passwordHashingAlg: 'BCRYPT' as const,
  bcryptLogRounds: 4,
  argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
  accountLinkingEnabled: true,
  mfaEnabled: true,
};
const fastHash = async () => '$2a$04$hash';

describe('import records and plan', () => {
  it('links every login method under the primary and normalises time joined', () => {
    const [record, ...rest] = importRecords(user(true));
    expect(rest).toEqual([]);
    expect(record).toMatchObject({
      userId: 'p1',
      isPrimaryUser: true,
      timeJoined: 5,
      externalIds: { p1: { externalUserId: 'ext' } },
    });
    expect(record?.loginMethods.map((m) => m.recipeUserId)).toEqual(['p1', 'p2']);
  });

  it('imports separate recipe users when no login method is primary', () => {
    const records = importRecords(user(false));
    expect(records.map((r) => [r.userId, r.isPrimaryUser, r.timeJoined, Object.keys(r.externalIds)])).toEqual([
      ['p1', false, 20, ['p1']],
      ['p2', false, 5, []],
    ]);
    const plan = importPlan(user(false), records);
    expect(plan.primaryFreeChecks).toEqual([
      { tenantId: 'public', email: 'a@x.com' },
      { tenantId: 'public', email: 'a@x.com' },
      { tenantId: 't1', email: 'a@x.com' },
    ]);
    expect(plan.roles).toEqual({
      userId: 'ext',
      assignments: [
        { role: 'r', tenantId: 'public' },
        { role: 'r', tenantId: 't1' },
      ],
    });
    expect(plan.totpDevices?.devices[0]?.deviceName).toBe('TOTP Device 0');
    expect(plan.metadata).toEqual({ userId: 'ext', update: { a: 1 } });
    expect(plan.externalIdsNotUserIds).toEqual(['ext']);
  });

  it('words every conflict like the reference', () => {
    expect(messageFor({ kind: 'uniqueEmail', recipeId: 'emailpassword', email: 'e' })).toBe(
      'E003: A user with email e already exists in emailpassword loginMethod.',
    );
    expect(messageFor({ kind: 'uniqueEmail', recipeId: 'passwordless', email: 'e' })).toMatch(/^E006: /);
    expect(messageFor({ kind: 'uniquePhone', phoneNumber: '+1' })).toMatch(/^E007: /);
    expect(messageFor({ kind: 'uniqueThirdParty', thirdPartyId: 'g', thirdPartyUserId: 'u' })).toMatch(/^E005: /);
    expect(messageFor({ kind: 'primaryAccountInfo' })).toBe('E027: there is a conflicting account info');
    expect(messageFor({ kind: 'externalId', externalUserId: 'x' })).toBe(
      'E031: A user with externalId x already exists',
    );
    expect(messageFor({ kind: 'role', role: 'r' })).toBe(
      'E034: Role does not exist! You need to pre-create the role before assigning it to the user.',
    );
    expect(messageFor({ kind: 'internal' })).toBeUndefined();
  });
});

describe('importUser outcomes', () => {
  it('E019 without account linking or MFA; allowed with MFA only', async () => {
    const store = fakeStore([]);
    const off = await importUser(
      { store, hashPassword: fastHash },
      {
        appId: 'a',
        user: user(true, { totpDevices: [] }),
        config: { ...CONFIG, accountLinkingEnabled: false, mfaEnabled: false },
      },
    );
    expect(off).toEqual({
      kind: 'failed',
      errors: ['E019: Account linking feature is not enabled for this app. Please contact support to enable it.'],
      extraWriteIndexes: [],
    });
    const mfa = await importUser(
      { store, hashPassword: fastHash },
      { appId: 'a', user: user(true), config: { ...CONFIG, accountLinkingEnabled: false } },
    );
    expect(mfa.kind).toBe('imported');
  });

  it('E037 for TOTP devices without MFA', async () => {
    const outcome = await importUser(
      { store: fakeStore([]), hashPassword: fastHash },
      { appId: 'a', user: user(true), config: { ...CONFIG, mfaEnabled: false } },
    );
    expect(outcome.kind === 'failed' && outcome.errors).toEqual(['E037: MFA must be enabled to import totp devices.']);
  });

  it('hashes plain-text passwords before writing; keeps given hashes verbatim', async () => {
    const store = fakeStore([]);
    await importUser({ store, hashPassword: fastHash }, { appId: 'a', user: user(true), config: CONFIG });
    const written = store.plans[0]?.changes[0]?.after;
    expect(written?.loginMethods[0]?.passwordHash).toBe('$2a$04$hash');
  });

  it('retries only the metadata guard, re-reading it, then throws a transient error', async () => {
    const busy: WriteResult = { ok: false, failed: [{ kind: 'metadata' }] };
    const store = fakeStore([busy, busy]);
    expect(
      (await importUser({ store, hashPassword: fastHash }, { appId: 'a', user: user(true), config: CONFIG })).kind,
    ).toBe('imported');
    expect(store.plans).toHaveLength(3);
    const always = fakeStore(Array.from({ length: 10 }, () => busy));
    await expect(
      importUser({ store: always, hashPassword: fastHash }, { appId: 'a', user: user(true), config: CONFIG }),
    ).rejects.toThrow(/metadata kept changing/);
  });

  it('reports a staged row that changed as a companion failure, by index', async () => {
    const store = fakeStore([{ ok: false, failed: [{ kind: 'stagedRow', id: 'row-1' }] }]);
    const outcome = await importUser(
      { store, hashPassword: fastHash },
      { appId: 'a', user: user(true), config: CONFIG, companions: { importedStagedRows: ['row-1'] } },
    );
    expect(outcome).toEqual({ kind: 'extra-write-failed', extraWriteIndexes: [0] });
  });

  it('recognises an earlier delivery of the same user', async () => {
    const store = fakeStore([
      {
        ok: false,
        failed: [
          { kind: 'user', userId: 'p1' },
          { kind: 'uniqueEmail', recipeId: 'emailpassword', email: 'a@x.com' },
        ],
      },
    ]);
    const outcome = await importUser(
      { store, hashPassword: fastHash },
      { appId: 'a', user: user(true), config: CONFIG },
    );
    expect(outcome).toEqual({ kind: 'already-imported', userId: 'p1' });
  });

  it('refuses users above the transaction limit', async () => {
    const outcome = await importUser(
      { store: fakeStore([], 101), hashPassword: fastHash },
      { appId: 'a', user: user(true), config: CONFIG },
    );
    expect(outcome.kind === 'failed' && outcome.errors[0]).toMatch(/needs 101 storage operations/);
  });
});
