/**
 * The pieces of "throttling is backpressure" that need no DynamoDB: the kit's retry policy and
 * classification, the rehearsal's exceptions, the local runtime's option, and the worker's return
 * of messages with a delay (against in-memory fakes of the project's ports).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ImportMessage, importMessageSchema } from '#functions/domain/bulk-import/message.js';
import type { StagedRow, StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import { BackpressureError } from '#functions/shared/errors.js';
import { parseThrottlingFraction, simulatedThrottlingError } from '#functions/shared/simulated-throttling.js';
import { TransientStorageError } from '#functions/storage/kit/errors.js';
import {
  classifyError,
  getItem,
  putItem,
  type Table,
  transact,
  withRetryPolicy,
} from '#functions/storage/kit/index.js';
import { historyOf, returnLater } from '#functions/workers/backpressure.js';
import { OptionsError, parseCommand } from '../../bin/local/options.js';

const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, ...extra });

/** A table whose client fails every call with `error` and counts the calls. */
function failingTable(error: () => Error) {
  let calls = 0;
  const table = {
    name: 'kit-test',
    client: () => ({
      send: async () => {
        calls++;
        throw error();
      },
    }),
  } as unknown as Table;
  return { table, calls: () => calls };
}

describe('the kit under a retry policy', () => {
  it('stops retrying before the deadline, however many attempts are left', async () => {
    const { table, calls } = failingTable(() => named('ProvisionedThroughputExceededException'));
    const error = await withRetryPolicy({ deadline: Date.now() + 300 }, () =>
      transact(table, [{ Put: { TableName: 'kit-test', Item: { PK: 'a', SK: 'b' } } }], { attempts: 100 }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientStorageError);
    expect(error).toBeInstanceOf(BackpressureError);
    expect(error).toMatchObject({ kind: 'throttled' });
    expect(calls()).toBeGreaterThan(1);
    // Far fewer calls than the 100 attempts allowed: the deadline, not the attempts, stopped it.
    expect(calls()).toBeLessThan(100);
  });

  it("lets a worker ask for fewer attempts than a call's default", async () => {
    const { table, calls } = failingTable(() => named('ThrottlingException'));
    await expect(withRetryPolicy({ attempts: 2 }, () => getItem(table, { PK: 'a', SK: 'b' }))).rejects.toMatchObject({
      kind: 'throttled',
    });
    expect(calls()).toBe(2);
  });

  it('retries a throttled write, but not one that may have been applied (5xx)', async () => {
    const throttled = failingTable(() => named('ThrottlingException'));
    await expect(
      withRetryPolicy({ attempts: 3 }, () => putItem(throttled.table, { PK: 'a', SK: 'b' })),
    ).rejects.toBeInstanceOf(TransientStorageError);
    expect(throttled.calls()).toBe(3);
    const broken = failingTable(() => named('InternalServerError', { $metadata: { httpStatusCode: 500 } }));
    await expect(
      putItem(broken.table, { PK: 'a', SK: 'b' }, { expression: 'attribute_not_exists(PK)' }),
    ).rejects.toMatchObject({ kind: 'unavailable' });
    expect(broken.calls()).toBe(1);
  });

  it('throws anything else as it is, at once', async () => {
    const { table, calls } = failingTable(() => named('ValidationException', { $metadata: { httpStatusCode: 400 } }));
    await expect(getItem(table, { PK: 'a', SK: 'b' })).rejects.toMatchObject({ name: 'ValidationException' });
    expect(calls()).toBe(1);
  });

  it('classifies DynamoDB, SQS and KMS throttling and its own backpressure errors as such', () => {
    for (const name of [
      'ProvisionedThroughputExceededException',
      'ThrottlingException',
      'RequestLimitExceeded',
      'KmsThrottled',
      'KMSThrottlingException',
      'RequestThrottled',
      'OverLimit',
    ]) {
      expect(classifyError(named(name)), name).toBe('throttled');
    }
    expect(classifyError(named('KMSInternalException'))).toBe('unavailable');
    expect(classifyError(new BackpressureError('conflict', 'busy'))).toBe('conflict');
    expect(
      classifyError(named('TransactionCanceledException', { CancellationReasons: [{ Code: 'TransactionConflict' }] })),
    ).toBe('conflict');
  });
});

describe('the rehearsal (--simulate-throttling)', () => {
  it("throws DynamoDB's own exceptions, every one of which the kit classifies as throttling", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          'TransactWriteItemsCommand',
          'GetItemCommand',
          'BatchGetItemCommand',
          'QueryCommand',
          undefined,
        ),
        fc.nat({ max: 100 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (command, items, pick) => {
          const input = { TransactItems: Array.from({ length: items }, () => ({})) };
          const error = simulatedThrottlingError(command, input, pick);
          const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
          if (reasons) expect(reasons).toHaveLength(items);
          return (
            classifyError(error) === 'throttled' &&
            (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 400 &&
            [
              'TransactionCanceledException',
              'ProvisionedThroughputExceededException',
              'ThrottlingException',
              'RequestLimitExceeded',
            ].includes(error.name)
          );
        },
      ),
    );
  });

  it('takes a fraction from 0 (off) to below 1 from the command line, and refuses anything else', () => {
    const options = (...args: string[]) => {
      const command = parseCommand(args, {}, '/tmp');
      return command.help ? undefined : command.options.simulateThrottling;
    };
    expect(options('--simulate-throttling=0.3')).toBe(0.3);
    expect(options('--simulate-throttling', '.05')).toBe(0.05);
    expect(options('--simulate-throttling=0')).toBeUndefined();
    expect(options()).toBeUndefined();
    for (const bad of ['1', '1.5', '-0.1', 'abc', '30%', '', '0.3x', 'NaN', 'Infinity']) {
      expect(() => options(`--simulate-throttling=${bad}`), bad).toThrow(OptionsError);
    }
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          const value = parseThrottlingFraction(text);
          return value === undefined || (value > 0 && value < 1);
        } catch (error) {
          return error instanceof RangeError;
        }
      }),
    );
  });
});

describe('the rehearsal and the function bundles', () => {
  it('is refused at start-up with HANDLER_BUNDLES (the bundles leave it out), and accepted without', () => {
    const bundled = { HANDLER_BUNDLES: '/tmp/cdk.out' };
    expect(() => parseCommand(['--simulate-throttling=0.3'], bundled, '/tmp')).toThrow(
      '--simulate-throttling runs the handlers from the sources: the function bundles leave it out (unset HANDLER_BUNDLES)',
    );
    // Off (0) or absent, the bundles run as ever.
    expect(() => parseCommand(['--simulate-throttling=0'], bundled, '/tmp')).not.toThrow();
    expect(() => parseCommand([], bundled, '/tmp')).not.toThrow();
    expect(() => parseCommand(['--simulate-throttling=0.3'], { HANDLER_BUNDLES: ' ' }, '/tmp')).not.toThrow();
  });
});

describe('returning messages with a delay', () => {
  const policy = { firstDelaySeconds: 30, maxDelaySeconds: 900, giveUpAfterSeconds: 3600 };
  const message = (id: string): ImportMessage => ({ v: 1, appId: 'a', id });
  const record = (attributes: Record<string, string> = {}) => ({
    receiptHandle: 'rh',
    messageAttributes: Object.fromEntries(
      Object.entries(attributes).map(([k, v]) => [
        k,
        { dataType: 'Number', stringValue: v, stringListValues: [], binaryListValues: [] },
      ]),
    ),
  });

  function fakes(sendOk: boolean) {
    const rows = new Map<string, StagedRow>();
    for (const id of ['u1', 'u2', 'u3']) {
      rows.set(id, { appId: 'a', id, status: 'PROCESSING', user: {} as never, createdAt: 1, updatedAt: 1, sentAt: 1 });
    }
    const sent: unknown[] = [];
    const visibility: unknown[] = [];
    const store = {
      get: async (_a: string, id: string) => rows.get(id),
      fail: async (row: StagedRow, text: string) => {
        rows.set(row.id, { ...(rows.get(row.id) as StagedRow), status: 'FAILED', errorMessage: text });
        return true;
      },
      noteTransientError: async (
        _a: string,
        id: string,
        text: string,
        _now: number,
        kind?: 'backpressure' | 'error',
      ) => {
        rows.set(id, { ...(rows.get(id) as StagedRow), lastError: text, lastErrorKind: kind ?? 'error' });
      },
    } as unknown as StagingStore;
    const deps = {
      store,
      now: () => 10_000_000,
      policy,
      publisher: {
        sendDelayed: async (entries: readonly unknown[]) => {
          sent.push(...entries);
          return entries.map(() => sendOk);
        },
      },
      delayVisibility: async (entries: readonly unknown[]) => void visibility.push(...entries),
    };
    return { rows, sent, visibility, deps };
  }

  it('sends a delayed copy carrying the history, and fails a user past the bound, saying so', async () => {
    const { rows, sent, deps } = fakes(true);
    const outcomes = await returnLater(deps, [
      { message: message('u1'), record: record(), error: 'throttled' },
      {
        message: message('u2'),
        record: record({ backpressureSince: String(10_000_000 - 60_000), backpressureRetries: '3' }),
        error: 'throttled',
      },
      {
        message: message('u3'),
        record: record({ backpressureSince: String(10_000_000 - 3_600_000), backpressureRetries: '30' }),
        error: 'TransientStorageError: DynamoDB kept throttling',
      },
    ]);
    expect(outcomes).toEqual(['returned', 'returned', 'failed']);
    expect(sent).toEqual([
      {
        message: message('u1'),
        delaySeconds: expect.any(Number),
        attributes: { backpressureSince: 10_000_000, backpressureRetries: 1 },
      },
      {
        message: message('u2'),
        delaySeconds: expect.any(Number),
        attributes: { backpressureSince: 10_000_000 - 60_000, backpressureRetries: 4 },
      },
    ]);
    expect((sent[1] as { delaySeconds: number }).delaySeconds).toBeGreaterThanOrEqual(120);
    expect(rows.get('u3')?.errorMessage).toMatch(
      /^Import gave up after 1 h of throttling: .* Last error: TransientStorageError/,
    );
  });

  it('leaves a message it could not send to come back by itself, noting why on its row', async () => {
    const { rows, visibility, deps } = fakes(false);
    const outcomes = await returnLater(deps, [{ message: message('u1'), record: record(), error: 'throttled' }]);
    expect(outcomes).toEqual(['left']);
    expect(rows.get('u1')).toMatchObject({
      status: 'PROCESSING',
      lastError: 'throttled',
      lastErrorKind: 'backpressure',
    });
    expect(visibility).toEqual([{ receiptHandle: 'rh', seconds: expect.any(Number) }]);
  });

  it('reads a history only from plausible attributes', () => {
    expect(historyOf(record({ backpressureSince: '1700000000000', backpressureRetries: '2' }))).toEqual({
      since: 1_700_000_000_000,
      retries: 2,
    });
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('backpressureSince', 'backpressureRetries', 'x'), fc.string()),
        (attrs) => {
          const history = historyOf(record(attrs));
          return (
            history === undefined ||
            (Number.isSafeInteger(history.since) &&
              history.since > 0 &&
              Number.isSafeInteger(history.retries) &&
              history.retries >= 0)
          );
        },
      ),
    );
  });
});

describe('the import message (zod mini)', () => {
  it('accepts exactly a version 1 message with an app id and an id of 1 to 64 characters', () => {
    expect(importMessageSchema.parse({ v: 1, appId: 'shop', id: 'u1', extra: true })).toEqual({
      v: 1,
      appId: 'shop',
      id: 'u1',
    });
    fc.assert(
      fc.property(fc.anything(), fc.string({ maxLength: 70 }), fc.string({ maxLength: 70 }), (v, appId, id) => {
        const ok = importMessageSchema.safeParse({ v, appId, id }).success;
        const valid = v === 1 && appId.length >= 1 && appId.length <= 64 && id.length >= 1 && id.length <= 64;
        return ok === valid && importMessageSchema.safeParse(v).success === false;
      }),
    );
  });
});
