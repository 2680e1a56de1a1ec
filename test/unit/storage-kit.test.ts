import { describe, expect, it } from 'vitest';
import { TransientStorageError } from '#functions/storage/kit/errors.js';
import {
  batchGetAll,
  classifyError,
  defineEntity,
  shardOf,
  type Table,
  transact,
  updateExpression,
} from '#functions/storage/kit/index.js';
import { partitionCondition } from '#functions/storage/kit/query.js';

/** A table whose client answers each TransactWriteItems call with the next outcome (an error or success). */
function scriptedTable(outcomes: (Error | undefined)[]) {
  const calls: { token: unknown; items: unknown }[] = [];
  const table = {
    name: 'kit-test',
    client: () => ({
      send: async (command: { input: { ClientRequestToken?: string; TransactItems?: unknown } }) => {
        calls.push({ token: command.input.ClientRequestToken, items: command.input.TransactItems });
        const outcome = outcomes.shift();
        if (outcome) throw outcome;
        return {};
      },
    }),
  } as unknown as Table;
  return { table, calls };
}

const cancelled = (...codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
const named = (name: string) => Object.assign(new Error(name), { name });
const put = { Put: { TableName: 'kit-test', Item: { PK: 'a', SK: 'b' } } };

describe('transact', () => {
  it('retries a conflicting transaction with the same client request token', async () => {
    const { table, calls } = scriptedTable([cancelled('None', 'TransactionConflict'), named('ThrottlingException')]);
    expect(await transact(table, [put, put])).toEqual({ ok: true });
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.token)).size).toBe(1);
    expect(typeof calls[0]?.token).toBe('string');
  });

  it('returns failed conditions by action index without retrying', async () => {
    const { table, calls } = scriptedTable([
      cancelled('None', 'ConditionalCheckFailed', 'None', 'ConditionalCheckFailed'),
    ]);
    expect(await transact(table, [put, put, put, put])).toEqual({ ok: false, failedIndexes: [1, 3] });
    expect(calls).toHaveLength(1);
  });

  it('gives up on persistent throttling with a classified transient error', async () => {
    const { table, calls } = scriptedTable(Array.from({ length: 3 }, () => cancelled('ThrottlingError')));
    const error = await transact(table, [put], { attempts: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientStorageError);
    expect(error).toMatchObject({ kind: 'throttled' });
    expect(calls).toHaveLength(3);
  });

  it('throws a permanent failure at once', async () => {
    const { table, calls } = scriptedTable([named('ValidationException')]);
    await expect(transact(table, [put])).rejects.toMatchObject({ name: 'ValidationException' });
    expect(calls).toHaveLength(1);
  });

  it('writes nothing for an empty transaction', async () => {
    const { table, calls } = scriptedTable([]);
    expect(await transact(table, [])).toEqual({ ok: true });
    expect(calls).toHaveLength(0);
  });
});

describe('batchGetAll', () => {
  /** A table whose BatchGet answers leave the keys in `unprocessed(call)` unprocessed. */
  function batchTable(unprocessed: (call: number, keys: { PK: string }[]) => { PK: string }[]) {
    let calls = 0;
    const sizes: number[] = [];
    const table = {
      name: 't',
      client: () => ({
        send: async (command: { input: { RequestItems: Record<string, { Keys: { PK: string; SK: string }[] }> } }) => {
          const keys = command.input.RequestItems.t?.Keys ?? [];
          sizes.push(keys.length);
          const left = new Set(unprocessed(calls++, keys).map((k) => k.PK));
          return {
            Responses: { t: keys.filter((k) => !left.has(k.PK)).map((k) => ({ ...k, found: true })) },
            UnprocessedKeys: left.size > 0 ? { t: { Keys: keys.filter((k) => left.has(k.PK)) } } : {},
          };
        },
      }),
    } as unknown as Table;
    return { table, sizes };
  }
  const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ PK: `k${i}`, SK: 'X' }));

  it('reads every key: 100 per call, duplicates once, unprocessed keys again', async () => {
    const { table, sizes } = batchTable((call, asked) => (call === 0 ? asked.slice(0, 30) : []));
    const found = await batchGetAll(table, [...keys(150), ...keys(10)]);
    expect(found.map((i) => i.PK).sort()).toEqual(
      keys(150)
        .map((k) => k.PK)
        .sort(),
    );
    expect(sizes).toEqual([100, 30, 50]);
  });

  it('never answers with items missing: keys that keep coming back are an error', async () => {
    const { table } = batchTable((_, asked) => asked.slice(0, 1));
    await expect(batchGetAll(table, keys(3))).rejects.toBeInstanceOf(TransientStorageError);
  }, 30_000);
});

describe('classifyError', () => {
  it.each([
    [named('ConditionalCheckFailedException'), 'conditional'],
    [cancelled('None', 'ConditionalCheckFailed'), 'conditional'],
    [named('ProvisionedThroughputExceededException'), 'throttled'],
    [cancelled('ConditionalCheckFailed', 'ThrottlingError'), 'throttled'],
    [named('TransactionConflictException'), 'conflict'],
    [cancelled('TransactionConflict'), 'conflict'],
    [Object.assign(new Error('reset'), { code: 'ECONNRESET' }), 'unavailable'],
    [Object.assign(new Error('5xx'), { $metadata: { httpStatusCode: 503 } }), 'unavailable'],
    [cancelled('ValidationError'), 'permanent'],
    [new TypeError('bug'), 'permanent'],
  ])('%s → %s', (error, kind) => {
    expect(classifyError(error)).toBe(kind);
  });
});

describe('keys as data', () => {
  const row = defineEntity({
    type: 'ROW',
    key: (r: { id: string }) => ({ PK: `R#${r.id}`, SK: 'ROW' }),
    indexes: { GSI1: { pk: (r: { status: string }) => `S#${r.status}`, sk: (r: { status: string }) => r.status } },
  });

  it('builds items and index entries from the declaration', () => {
    expect(row.item({ id: '1' }, { n: 1 }, { GSI1: { status: 'NEW' } })).toEqual({
      PK: 'R#1',
      SK: 'ROW',
      entityType: 'ROW',
      GSI1PK: 'S#NEW',
      GSI1SK: 'NEW',
      n: 1,
    });
    expect(row.indexPartition('GSI1', { status: 'DONE' })).toEqual({ GSI1PK: 'S#DONE' });
  });

  it('writes update expressions through placeholders only', () => {
    expect(
      updateExpression({ status: 'DONE', ...row.indexPartition('GSI1', { status: 'DONE' }) }, { count: 2 }),
    ).toEqual({
      UpdateExpression: 'SET #s0 = :s0, #s1 = :s1 ADD #a0 :a0',
      ExpressionAttributeNames: { '#s0': 'status', '#s1': 'GSI1PK', '#a0': 'count' },
      ExpressionAttributeValues: { ':s0': 'DONE', ':s1': 'S#DONE', ':a0': 2 },
    });
  });

  it('takes key attribute names from the table schema', () => {
    expect(partitionCondition({ index: 'GSI2', pk: 'p', sk: { beginsWith: 'x#' } })).toEqual({
      IndexName: 'GSI2',
      KeyConditionExpression: '#kpk = :kpk AND begins_with(#ksk, :ksk)',
      ExpressionAttributeNames: { '#kpk': 'GSI2PK', '#ksk': 'GSI2SK' },
      ExpressionAttributeValues: { ':kpk': 'p', ':ksk': 'x#' },
    });
  });
});

describe('shardOf', () => {
  it('is FNV-1a: stable, and spread over every shard', () => {
    // FNV-1a 32-bit of "a" is 0xe40c292c.
    expect(shardOf('a', 2 ** 16)).toBe(0xe40c292c % 2 ** 16);
    expect(shardOf('', 7)).toBe(0x811c9dc5 % 7);
    expect(new Set(Array.from({ length: 400 }, (_, i) => shardOf(`id-${i}`, 16))).size).toBe(16);
  });
});
