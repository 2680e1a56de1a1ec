import { describe, expect, it } from 'vitest';
import {
  failExhaustedImport,
  type ProcessingDeps,
  processStagedUser,
  processStagedUsers,
} from '#functions/domain/bulk-import/processing.js';
import type { StagedStatus, StagedUserRecord, StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportUser } from '#functions/domain/bulk-import/types.js';
import type { ImportOutcome } from '#functions/domain/import/import-user.js';
import { isTransientFailure } from '#functions/storage/kit/index.js';

const SECRET = 'plain-password-xyz';
const user = (id: string): ImportUser => ({
  id,
  userRoles: [],
  totpDevices: [],
  loginMethods: [
    {
      recipeId: 'emailpassword',
      email: `${id}@x.io`,
      plainTextPassword: SECRET,
      tenantIds: ['public'],
      isVerified: false,
      isPrimary: false,
      timeJoinedInMSSinceEpoch: 1,
      superTokensUserId: id,
    },
  ],
});

/** An in-memory StagingStore fake with the same conditional semantics. */
function fakeStore(rows: Record<string, StagedStatus>) {
  const data = new Map<
    string,
    StagedUserRecord & { status: StagedStatus; lastError?: string; errorMessage?: string }
  >();
  for (const [id, status] of Object.entries(rows)) {
    data.set(id, { appId: 'a', id, status, user: user(id), createdAt: 1, updatedAt: 1, sentAt: 1 });
  }
  const claims: string[][] = [];
  const claimOne = (id: string) => {
    const row = data.get(id);
    if (!row || row.status === 'FAILED') return undefined;
    row.status = 'PROCESSING';
    return row;
  };
  const store: StagingStore = {
    insertNew: async () => ({ collidedIds: [] }),
    insertNewOnce: async () => ({ collidedIds: [] }),
    get: async (_a, id) => data.get(id),
    claim: async (_a, id) => claimOne(id),
    claimMany: async (_a, ids) => {
      claims.push([...ids]);
      return new Map(ids.map((id) => [id, claimOne(id)] as const));
    },
    fail: async (_a, id, from, message) => {
      const row = data.get(id);
      if (!row || row.status !== from) return false;
      Object.assign(row, { status: 'FAILED', errorMessage: message });
      return true;
    },
    noteTransientError: async (_a, id, message) => {
      const row = data.get(id);
      if (row) row.lastError = message;
    },
    removeImported: async (_a, id) => data.delete(id),
    remove: async () => new Set(),
    list: async () => ({ rows: [] }),
    count: async () => data.size,
    pendingSentBefore: async () => undefined,
    markSent: async () => undefined,
  };
  return { store, data, claims };
}

function deps(
  store: StagingStore,
  outcome: (id: string) => Promise<ImportOutcome>,
  group: ProcessingDeps['importUserGroup'] = async () => ({ imported: new Set(), hashes: new Map() }),
): ProcessingDeps {
  return {
    store,
    loadApp: async () => ({
      validation: {
        roleExists: () => true,
        tenantExists: (t) => t === 'public',
        features: { accountLinking: false, mfa: false },
        firebaseSignerKeyConfigured: false,
      },
      config: {
        passwordHashingAlg: 'BCRYPT',
        bcryptLogRounds: 4,
        argon2: { iterations: 1, memoryKb: 1024, parallelism: 1 },
        accountLinkingEnabled: false,
        mfaEnabled: false,
      },
    }),
    importUser: (request) => outcome(request.user.id),
    importUserGroup: group,
    now: () => 5,
    newId: () => crypto.randomUUID(),
    warn: () => undefined,
    isTransient: isTransientFailure,
  };
}

const msg = (id: string) => ({ v: 1 as const, appId: 'a', id });

describe('processStagedUser', () => {
  it('imports, skips missing/FAILED rows, never marks an already-imported user FAILED', async () => {
    const { store, data } = fakeStore({ u1: 'NEW', u2: 'FAILED', u3: 'PROCESSING' });
    const base = deps(store, async (id) =>
      id === 'u3' ? { kind: 'already-imported', userId: id } : { kind: 'imported', user: {} as never },
    );
    const companions: unknown[] = [];
    const d: ProcessingDeps = {
      ...base,
      importUser: (request) => {
        companions.push(request.companions);
        return base.importUser(request);
      },
    };
    expect(await processStagedUser(d, msg('u1'))).toEqual({ kind: 'imported' });
    // The row is deleted in the user's own transaction.
    expect(companions).toEqual([{ importedStagedRows: ['u1'] }]);
    expect((await processStagedUser(d, msg('u2'))).kind).toBe('skipped');
    expect((await processStagedUser(d, msg('gone'))).kind).toBe('skipped');
    expect((await processStagedUser(d, msg('u3'))).kind).toBe('skipped');
    expect(data.has('u3')).toBe(false);
    expect(data.get('u2')?.status).toBe('FAILED');
  });

  it('marks domain failures FAILED with the message and invalid users with the Java list', async () => {
    const { store, data } = fakeStore({ u1: 'NEW', u2: 'NEW' });
    data.get('u2')!.user.loginMethods[0]!.tenantIds = ['gone'];
    const d = deps(store, async () => ({
      kind: 'failed',
      errors: ['E003: A user with email u1@x.io already exists in emailpassword loginMethod.'],
      extraWriteIndexes: [],
    }));
    expect(await processStagedUser(d, msg('u1'))).toMatchObject({ kind: 'failed' });
    expect(data.get('u1')?.errorMessage).toMatch(/^E003: /);
    await processStagedUser(d, msg('u2'));
    expect(data.get('u2')?.errorMessage).toBe('[Invalid tenantId: gone for emailpassword recipe.]');
  });

  it('retries transient errors, remembering a credential-free last error; the DLQ turns it into FAILED', async () => {
    const { store, data } = fakeStore({ u1: 'NEW' });
    const d = deps(store, async () => {
      throw Object.assign(new Error(`connection reset while sending ${SECRET}`), { code: 'ECONNRESET' });
    });
    const result = await processStagedUser(d, msg('u1'));
    expect(result.kind).toBe('retry');
    expect(data.get('u1')?.lastError).toContain('connection reset');
    expect(data.get('u1')?.lastError).not.toContain(SECRET);
    expect(await failExhaustedImport(d, msg('u1'))).toBe('failed');
    expect(data.get('u1')?.status).toBe('FAILED');
    expect(data.get('u1')?.errorMessage).toContain('connection reset');
    expect(await failExhaustedImport(d, msg('u1'))).toBe('skipped');
    expect(await failExhaustedImport(d, msg('gone'))).toBe('skipped');
  });
  it('marks the row FAILED at once for an error a retry would not fix (a value storage refuses, a bug)', async () => {
    const { store, data } = fakeStore({ u1: 'NEW' });
    const d = deps(store, async () => {
      // What the document client throws for a number DynamoDB cannot store.
      throw new Error(`Number 1e+308 is greater than Number.MAX_SAFE_INTEGER (${SECRET})`);
    });
    expect(await processStagedUser(d, msg('u1'))).toEqual({
      kind: 'failed',
      message: 'Import failed: Error: Number 1e+308 is greater than Number.MAX_SAFE_INTEGER (<redacted>)',
    });
    expect(data.get('u1')).toMatchObject({
      status: 'FAILED',
      errorMessage: 'Import failed: Error: Number 1e+308 is greater than Number.MAX_SAFE_INTEGER (<redacted>)',
    });
    expect(data.get('u1')?.lastError).toBeUndefined();
  });

  it('retries a throttled or conflicting storage failure, and one before the row was claimed', async () => {
    for (const error of [
      Object.assign(new Error('slow down'), { name: 'ThrottlingException' }),
      Object.assign(new Error('cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'TransactionConflict' }],
      }),
    ]) {
      const { store, data } = fakeStore({ u1: 'NEW' });
      const d = deps(store, async () => {
        throw error;
      });
      expect((await processStagedUser(d, msg('u1'))).kind).toBe('retry');
      expect(data.get('u1')?.status).toBe('PROCESSING');
    }
    const { store, data } = fakeStore({ u1: 'NEW' });
    const unclaimable: StagingStore = {
      ...store,
      claim: async () => {
        throw new Error('a bug before the claim');
      },
    };
    expect(
      (
        await processStagedUser(
          deps(unclaimable, async () => ({ kind: 'imported', user: {} as never })),
          msg('u1'),
        )
      ).kind,
    ).toBe('retry');
    expect(data.get('u1')?.status).toBe('NEW');
  });
});

describe('processStagedUsers (a worker batch)', () => {
  it('claims the batch together, imports the valid users as a group and sends the rest one by one', async () => {
    const { store, data, claims } = fakeStore({ u1: 'NEW', u2: 'NEW', u3: 'NEW', u4: 'FAILED' });
    data.get('u3')!.user.loginMethods[0]!.tenantIds = ['gone'];
    const groups: string[][] = [];
    const singles: string[] = [];
    const d = deps(
      store,
      async (id) => {
        singles.push(id);
        return { kind: 'imported', user: {} as never };
      },
      async (request) => {
        expect(request.deleteStagedRows).toBe(true);
        groups.push(request.users.map((u) => u.id));
        for (const u of request.users) data.delete(u.id);
        return { imported: new Set(request.users.map((u) => u.id)), hashes: new Map() };
      },
    );
    const results = await processStagedUsers(d, [msg('u1'), msg('u2'), msg('u3'), msg('u4'), msg('u1')]);
    expect(claims).toEqual([['u1', 'u2', 'u3', 'u4']]);
    expect(groups).toEqual([['u1', 'u2']]);
    // u3 re-validates as invalid: the one-by-one path marks it FAILED with the Java list.
    expect(results.map((r) => r.kind)).toEqual(['imported', 'imported', 'failed', 'skipped', 'imported']);
    expect(data.get('u3')?.errorMessage).toBe('[Invalid tenantId: gone for emailpassword recipe.]');
    expect(singles).toEqual([]);
  });

  it('imports one by one, reusing the hashes, what the group did not import', async () => {
    const { store } = fakeStore({ u1: 'NEW', u2: 'NEW' });
    const seen: (string | undefined)[] = [];
    const d = deps(
      store,
      async () => ({ kind: 'imported', user: {} as never }),
      async () => ({ imported: new Set(), hashes: new Map([['u1', '$2a$04$computed']]) }),
    );
    const importUser = d.importUser;
    const spied: ProcessingDeps = {
      ...d,
      importUser: (request) => {
        seen.push(request.hashes?.get('u1'));
        return importUser(request);
      },
    };
    const results = await processStagedUsers(spied, [msg('u1'), msg('u2')]);
    expect(results.map((r) => r.kind)).toEqual(['imported', 'imported']);
    expect(seen).toEqual(['$2a$04$computed', '$2a$04$computed']);
  });

  it('falls back to one by one when the group path throws, logging no credential', async () => {
    const { store, data } = fakeStore({ u1: 'NEW', u2: 'NEW' });
    const warnings: string[] = [];
    const d: ProcessingDeps = {
      ...deps(
        store,
        async (id) => {
          data.delete(id);
          return { kind: 'imported', user: {} as never };
        },
        async () => {
          throw new Error(`boom ${SECRET}`);
        },
      ),
      warn: (message, fields) => void warnings.push(`${message} ${JSON.stringify(fields)}`),
    };
    const results = await processStagedUsers(d, [msg('u1'), msg('u2')]);
    expect(results.map((r) => r.kind)).toEqual(['imported', 'imported']);
    expect(data.size).toBe(0);
    expect(warnings.join('\n')).toContain('one by one');
    expect(warnings.join('\n')).not.toContain(SECRET);
  });
});
