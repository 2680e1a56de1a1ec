import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BackpressurePolicy,
  IMPORT_BACKPRESSURE,
  planBackpressure,
  throttledTooLongMessage,
} from '#functions/domain/bulk-import/backoff.js';
import { failExhaustedImport, handleDeadLetter } from '#functions/domain/bulk-import/dead-letters.js';
import {
  type ImportBatchDeps,
  importStagedBatch,
  importStagedUser,
  MIN_TIME_PER_USER_MS,
  ONE_BY_ONE_CONCURRENCY,
} from '#functions/domain/bulk-import/import-batch.js';
import type { ClaimedRow, StagedRow, StagedStatus, StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportOutcome } from '#functions/domain/import/import-user.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import { TransientWriteError } from '#functions/domain/users/write.js';
import { BackpressureError } from '#functions/shared/errors.js';
import { isBackpressure } from '#functions/wiring/staged-apps.js';

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
  const data = new Map<string, ClaimedRow & { status: StagedStatus; lastError?: string; errorMessage?: string }>();
  for (const [id, status] of Object.entries(rows)) {
    data.set(id, { appId: 'a', id, status, user: user(id), createdAt: 1, updatedAt: 1, sentAt: 1 });
  }
  const claims: string[][] = [];
  const claimOne = (id: string) => {
    const row = data.get(id);
    if (!row || row.status === 'FAILED') return undefined;
    row.status = 'PROCESSING';
    return { ...row };
  };
  const store: StagingStore = {
    insertNewOnce: async () => ({ collidedIds: [], complete: true }),
    // Copies, as a database read gives: a later change does not show in a row already read.
    // (The store's `get` leaves the credentials out; none of these tests reads them through it.)
    get: async (_a, id) => {
      const row = data.get(id);
      return row && ({ ...row } as unknown as StagedRow);
    },
    claim: async (_a, id) => claimOne(id),
    claimMany: async (_a, ids) => {
      claims.push([...ids]);
      return new Map(ids.map((id) => [id, claimOne(id)] as const));
    },
    fail: async (seen, message) => {
      const row = data.get(seen.id);
      if (!row || seen.status === 'FAILED' || row.status !== seen.status || row.createdAt !== seen.createdAt) {
        return false;
      }
      Object.assign(row, { status: 'FAILED', errorMessage: message });
      return true;
    },
    noteTransientError: async (_a, id, message, _now, kind) => {
      const row = data.get(id);
      if (row) Object.assign(row, { lastError: message, lastErrorKind: kind ?? 'error' });
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

/** An import of one user that succeeds, recording the id in `singles`. */
const importedOneByOne =
  (singles: string[]) =>
  async (id: string): Promise<ImportOutcome> => {
    singles.push(id);
    return { kind: 'imported', user: {} as never };
  };

function deps(
  store: StagingStore,
  outcome: (id: string) => Promise<ImportOutcome>,
  group: ImportBatchDeps['importUserGroup'] = async () => ({ imported: new Set(), hashes: new Map() }),
): ImportBatchDeps {
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
    isBackpressure,
  };
}

const msg = (id: string) => ({ v: 1 as const, appId: 'a', id });

describe('importStagedUser', () => {
  it('imports, skips missing/FAILED rows, never marks an already-imported user FAILED', async () => {
    const { store, data } = fakeStore({ u1: 'NEW', u2: 'FAILED', u3: 'PROCESSING' });
    const base = deps(store, async (id) =>
      id === 'u3' ? { kind: 'already-imported', userId: id } : { kind: 'imported', user: {} as never },
    );
    const companions: unknown[] = [];
    const d: ImportBatchDeps = {
      ...base,
      importUser: (request) => {
        companions.push(request.companions);
        return base.importUser(request);
      },
    };
    expect(await importStagedUser(d, msg('u1'))).toEqual({ kind: 'imported' });
    // The row is deleted in the user's own transaction.
    expect(companions).toEqual([{ importedStagedRows: ['u1'] }]);
    expect((await importStagedUser(d, msg('u2'))).kind).toBe('skipped');
    expect((await importStagedUser(d, msg('gone'))).kind).toBe('skipped');
    expect((await importStagedUser(d, msg('u3'))).kind).toBe('skipped');
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
    expect(await importStagedUser(d, msg('u1'))).toMatchObject({ kind: 'failed' });
    expect(data.get('u1')?.errorMessage).toMatch(/^E003: /);
    await importStagedUser(d, msg('u2'));
    expect(data.get('u2')?.errorMessage).toBe('[Invalid tenantId: gone for emailpassword recipe.]');
  });

  it('retries transient errors, remembering a credential-free last error; the DLQ turns it into FAILED', async () => {
    const { store, data } = fakeStore({ u1: 'NEW' });
    const d = deps(store, async () => {
      throw new TransientWriteError(`connection reset while sending ${SECRET}`);
    });
    const result = await importStagedUser(d, msg('u1'));
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
    expect(await importStagedUser(d, msg('u1'))).toEqual({
      kind: 'failed',
      message: 'Import failed: Error: Number 1e+308 is greater than Number.MAX_SAFE_INTEGER (<redacted>)',
    });
    expect(data.get('u1')).toMatchObject({
      status: 'FAILED',
      errorMessage: 'Import failed: Error: Number 1e+308 is greater than Number.MAX_SAFE_INTEGER (<redacted>)',
    });
    expect(data.get('u1')?.lastError).toBeUndefined();
  });

  it('returns a throttled, conflicting or unreachable storage failure as backpressure, and retries one before the row was claimed', async () => {
    for (const error of [
      Object.assign(new Error('slow down'), { name: 'ThrottlingException' }),
      Object.assign(new Error('cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'TransactionConflict' }],
      }),
      Object.assign(new Error('connection reset'), { code: 'ECONNRESET' }),
    ]) {
      const { store, data } = fakeStore({ u1: 'NEW' });
      const d = deps(store, async () => {
        throw error;
      });
      expect((await importStagedUser(d, msg('u1'))).kind).toBe('backpressure');
      expect(data.get('u1')?.status).toBe('PROCESSING');
      expect(data.get('u1')?.lastError).toBeUndefined();
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
        await importStagedUser(
          deps(unclaimable, async () => ({ kind: 'imported', user: {} as never })),
          msg('u1'),
        )
      ).kind,
    ).toBe('retry');
    expect(data.get('u1')?.status).toBe('NEW');
  });
});

describe('importStagedBatch (a worker batch)', () => {
  it('claims the batch together, imports the valid users as a group and sends the rest one by one', async () => {
    const { store, data, claims } = fakeStore({ u1: 'NEW', u2: 'NEW', u3: 'NEW', u4: 'FAILED' });
    data.get('u3')!.user.loginMethods[0]!.tenantIds = ['gone'];
    const groups: string[][] = [];
    const singles: string[] = [];
    const d = deps(store, importedOneByOne(singles), async (request) => {
      expect(request.deleteStagedRows).toBe(true);
      groups.push(request.users.map((u) => u.id));
      for (const u of request.users) data.delete(u.id);
      return { imported: new Set(request.users.map((u) => u.id)), hashes: new Map() };
    });
    const results = await importStagedBatch(d, [msg('u1'), msg('u2'), msg('u3'), msg('u4'), msg('u1')]);
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
    const spied: ImportBatchDeps = {
      ...d,
      importUser: (request) => {
        seen.push(request.hashes?.get('u1'));
        return importUser(request);
      },
    };
    const results = await importStagedBatch(spied, [msg('u1'), msg('u2')]);
    expect(results.map((r) => r.kind)).toEqual(['imported', 'imported']);
    expect(seen).toEqual(['$2a$04$computed', '$2a$04$computed']);
  });

  it('falls back to one by one when the group path throws, logging no credential', async () => {
    const { store, data } = fakeStore({ u1: 'NEW', u2: 'NEW' });
    const warnings: string[] = [];
    const d: ImportBatchDeps = {
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
    const results = await importStagedBatch(d, [msg('u1'), msg('u2')]);
    expect(results.map((r) => r.kind)).toEqual(['imported', 'imported']);
    expect(data.size).toBe(0);
    expect(warnings.join('\n')).toContain('one by one');
    expect(warnings.join('\n')).not.toContain(SECRET);
  });
});

const throttled = () =>
  new BackpressureError('throttled', 'DynamoDB kept throttling (capacity exceeded) after retries');

describe('backpressure in a worker batch', () => {
  it('holds a whole app back, untried one by one and unmarked, when its group write is throttled', async () => {
    const { store, data } = fakeStore({ u1: 'NEW', u2: 'NEW', u3: 'NEW' });
    const singles: string[] = [];
    const d = deps(store, importedOneByOne(singles), async () => {
      throw throttled();
    });
    const results = await importStagedBatch(d, [msg('u1'), msg('u2'), msg('u3')]);
    expect(results.map((r) => r.kind)).toEqual(['backpressure', 'backpressure', 'backpressure']);
    expect(results[0]).toEqual({
      kind: 'backpressure',
      error: 'BackpressureError: DynamoDB kept throttling (capacity exceeded) after retries',
    });
    expect(singles).toEqual([]);
    // Nothing is written to a busy table: no FAILED, no note.
    for (const row of data.values()) {
      expect(row.status).toBe('PROCESSING');
      expect(row.lastError).toBeUndefined();
    }
  });

  it('does the same when the group path reports the throttling it met instead of throwing', async () => {
    const { store } = fakeStore({ u1: 'NEW', u2: 'NEW' });
    const d = deps(
      store,
      async () => ({ kind: 'imported', user: {} as never }),
      async () => ({ imported: new Set(['u1']), hashes: new Map(), interruptedBy: throttled() }),
    );
    expect((await importStagedBatch(d, [msg('u1'), msg('u2')])).map((r) => r.kind)).toEqual([
      'imported',
      'backpressure',
    ]);
  });

  it('starts no further user once one met backpressure, and none without enough time left', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `u${i}`);
    const { store } = fakeStore(Object.fromEntries(ids.map((id) => [id, 'NEW' as const])));
    const started: string[] = [];
    // One message per app: every user takes the one-by-one path.
    const messages = ids.map((id) => ({ v: 1 as const, appId: `app-${id}`, id }));
    const d = deps(store, async (id) => {
      started.push(id);
      if (id === 'u0') throw throttled();
      await new Promise((r) => setTimeout(r, 5));
      return { kind: 'imported', user: {} as never };
    });
    const results = await importStagedBatch(
      { ...d, store: { ...store, claim: (_a, id, now) => store.claim('a', id, now) } },
      messages,
    );
    expect(started.length).toBeLessThanOrEqual(ONE_BY_ONE_CONCURRENCY);
    expect(results.filter((r) => r.kind === 'backpressure').length).toBe(10 - (started.length - 1));
    expect(
      results.find((r) => r.kind === 'backpressure' && r.error.startsWith('not started after backpressure')),
    ).toBeDefined();

    const late = await importStagedBatch({ ...d, timeLeftMs: () => MIN_TIME_PER_USER_MS - 1 }, [msg('u5')]);
    expect(late).toEqual([{ kind: 'backpressure', error: 'not started: the invocation had too little time left' }]);
  });

  it('still notes and retries a transient error that is not backpressure', async () => {
    const { store, data } = fakeStore({ u1: 'NEW' });
    const d = deps(store, async () => {
      throw new TransientWriteError('the metadata kept changing');
    });
    expect((await importStagedUser(d, msg('u1'))).kind).toBe('retry');
    expect(data.get('u1')).toMatchObject({
      lastError: 'TransientWriteError: the metadata kept changing',
      lastErrorKind: 'error',
    });
  });
});

describe('planBackpressure', () => {
  const policy = IMPORT_BACKPRESSURE;

  it('waits 30 s, then twice as long each time up to 15 min (jittered to half–all), and gives up after 6 h', () => {
    const ceilings = [30, 60, 120, 240, 480, 900, 900];
    let history: { since: number; retries: number } | undefined;
    for (const ceiling of ceilings) {
      const top = planBackpressure(history, 1_000_000, policy, () => 0.999_999);
      const bottom = planBackpressure(history, 1_000_000, policy, () => 0);
      expect(top).toMatchObject({ kind: 'later', delaySeconds: ceiling });
      expect(bottom).toMatchObject({ kind: 'later', delaySeconds: ceiling / 2 });
      history = top.kind === 'later' ? top.history : undefined;
    }
    expect(history).toEqual({ since: 1_000_000, retries: 7 });
    const start = 1_000_000;
    expect(planBackpressure({ since: start, retries: 20 }, start + 6 * 3600_000 - 1, policy).kind).toBe('later');
    expect(planBackpressure({ since: start, retries: 20 }, start + 6 * 3600_000, policy)).toEqual({
      kind: 'give-up',
      since: start,
    });
  });

  it('never waits longer than the maximum, never gives up before the bound, whatever the history', () => {
    fc.assert(
      fc.property(
        fc.record({
          since: fc.integer({ min: 0, max: 2 ** 45 }),
          retries: fc.nat({ max: 10_000 }),
        }),
        fc.integer({ min: 0, max: 2 ** 45 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (history, now, random) => {
          const plan = planBackpressure(history, now, policy, () => random);
          const waited = now - Math.min(history.since, now);
          if (plan.kind === 'give-up') return waited >= policy.giveUpAfterSeconds * 1000;
          return (
            waited < policy.giveUpAfterSeconds * 1000 &&
            plan.delaySeconds >= 0 &&
            plan.delaySeconds <= policy.maxDelaySeconds &&
            plan.history.retries === history.retries + 1 &&
            plan.history.since <= now
          );
        },
      ),
    );
  });
});

describe('handleDeadLetter', () => {
  const policy: BackpressurePolicy = { firstDelaySeconds: 30, maxDelaySeconds: 900, giveUpAfterSeconds: 3600 };

  it('re-queues a user whose last failure was backpressure, fails it past the bound, and fails other errors', async () => {
    const { store, data } = fakeStore({ busy: 'PROCESSING', late: 'NEW', broken: 'PROCESSING' });
    await store.noteTransientError('a', 'busy', 'TransientStorageError: throttled', 0, 'backpressure');
    await store.noteTransientError('a', 'late', 'TransientStorageError: throttled', 0, 'backpressure');
    await store.noteTransientError('a', 'broken', 'Error: bug', 0);
    const now = 10_000_000;
    const d = { store, now: () => now, policy };

    const requeue = await handleDeadLetter(d, msg('busy'), { since: now - 1000, retries: 4 });
    expect(requeue).toMatchObject({ kind: 'requeue', history: { since: now - 1000, retries: 5 } });
    expect(await handleDeadLetter(d, msg('busy'), undefined)).toMatchObject({
      kind: 'requeue',
      history: { since: now, retries: 1 },
    });
    expect(data.get('busy')?.status).toBe('PROCESSING');

    expect(await handleDeadLetter(d, msg('late'), { since: now - 3600_000, retries: 30 })).toEqual({ kind: 'failed' });
    expect(data.get('late')?.errorMessage).toBe(throttledTooLongMessage(policy, 'TransientStorageError: throttled'));
    expect(data.get('late')?.errorMessage).toMatch(/^Import gave up after 1 h of throttling: /);

    expect(await handleDeadLetter(d, msg('broken'), { since: now, retries: 1 })).toEqual({ kind: 'failed' });
    expect(data.get('broken')?.errorMessage).toBe('Import failed after repeated attempts: Error: bug');
    expect(await handleDeadLetter(d, msg('gone'), undefined)).toEqual({ kind: 'skipped' });
  });

  it('reads the row once; a change between that read and the FAILED write wins, and the row is read again', async () => {
    const { store, data } = fakeStore({ moved: 'NEW', imported: 'PROCESSING', still: 'PROCESSING' });
    for (const id of ['moved', 'imported', 'still']) await store.noteTransientError('a', id, 'Error: bug', 0);
    let reads = 0;
    let interfere: (() => void) | undefined;
    const counted: StagingStore = {
      ...store,
      get: async (appId, id) => {
        reads++;
        return store.get(appId, id);
      },
      fail: async (row, message, now) => {
        interfere?.();
        interfere = undefined;
        return store.fail(row, message, now);
      },
    };
    const d = { store: counted, now: () => 10_000_000, policy };

    // A worker claims the row (NEW → PROCESSING) after the dead letter read it as NEW.
    interfere = () => Object.assign(data.get('moved') as ClaimedRow, { status: 'PROCESSING' });
    expect(await handleDeadLetter(d, msg('moved'), undefined)).toEqual({ kind: 'failed' });
    expect(reads).toBe(2);
    expect(data.get('moved')).toMatchObject({
      status: 'FAILED',
      errorMessage: 'Import failed after repeated attempts: Error: bug',
    });

    // The user is imported (its row deleted) after the read: nothing is marked.
    reads = 0;
    interfere = () => data.delete('imported');
    expect(await handleDeadLetter(d, msg('imported'), undefined)).toEqual({ kind: 'skipped' });
    expect(reads).toBe(2);
    expect(data.has('imported')).toBe(false);

    // Nothing changes meanwhile: one read, one write.
    reads = 0;
    expect(await handleDeadLetter(d, msg('still'), undefined)).toEqual({ kind: 'failed' });
    expect(reads).toBe(1);
    expect(data.get('still')?.status).toBe('FAILED');
  });
});
