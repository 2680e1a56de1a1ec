import { describe, expect, it } from 'vitest';
import {
  blocks,
  indexWrites,
  itemReadUnits,
  itemSize,
  numberSize,
  queryReadUnits,
  sameValue,
  writeUnits,
} from '../../bench/lib/billing.js';

const GSIS = [
  { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
  { indexName: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK' },
];
const [GSI1] = GSIS as [(typeof GSIS)[number]];

/** An item of exactly `bytes` bytes: PK + SK (4 + value bytes) and a padding string attribute `p`. */
function itemOf(bytes: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base = { PK: 'U#1', SK: 'USER', ...extra };
  const used = itemSize(base) + 1; // + the name "p"
  return { ...base, p: 'x'.repeat(bytes - used) };
}

describe('item size (AWS item-size rules)', () => {
  it('counts UTF-8 attribute names and string values', () => {
    expect(itemSize({ PK: 'abc' })).toBe(5);
    expect(itemSize({ é: 'ü€' })).toBe(2 + 5);
    expect(itemSize(undefined)).toBe(0);
    expect(itemSize({ a: undefined, b: 'x' })).toBe(2);
  });

  it('counts numbers as 1 byte per two significant digits + 1', () => {
    expect(numberSize(123)).toBe(3);
    expect(numberSize(1234)).toBe(3);
    // Leading and trailing zeroes are trimmed: 1700000000000 has 2 significant digits.
    expect(numberSize(1_700_000_000_000)).toBe(2);
    expect(numberSize(1_700_000_000_123)).toBe(8);
    expect(numberSize(0.05)).toBe(2);
    expect(numberSize(-12)).toBe(3);
    expect(numberSize('12345678901234567890123456789012345678')).toBe(20);
    expect(numberSize(0)).toBe(2);
  });

  it('counts booleans and null as 1, lists and maps as 3 + per element 1 + size, sets as the sum', () => {
    expect(itemSize({ t: true, n: null })).toBe(4);
    expect(itemSize({ l: [123, 'ab'] })).toBe(1 + 3 + (1 + 3) + (1 + 2));
    expect(itemSize({ m: { b: 'xy' } })).toBe(1 + 3 + (1 + 1 + 2));
    expect(itemSize({ m: {}, l: [] })).toBe(1 + 3 + 1 + 3);
    expect(itemSize({ s: new Set(['ab', 'c']) })).toBe(1 + 3);
    expect(itemSize({ b: new Uint8Array(10) })).toBe(11);
  });

  it('builds test items of an exact size', () => {
    expect(itemSize(itemOf(1500))).toBe(1500);
  });
});

describe('write units', () => {
  const put = (bytes: number, transactional: boolean) =>
    writeUnits({ kind: 'Put', transactional, before: undefined, after: itemOf(bytes), ok: true }, GSIS);

  it('a 1,500-byte transactional Put costs 4 WRU, a standard one 2', () => {
    expect(put(1500, true).table).toBe(4);
    expect(put(1500, false).table).toBe(2);
  });

  it('rounds up per started KB', () => {
    expect(put(1024, false).table).toBe(1);
    expect(put(1025, false).table).toBe(2);
    expect(put(20, true).table).toBe(2);
    expect(blocks(0, 1024)).toBe(1);
  });

  it('charges the larger of the sizes before and after', () => {
    const grow = { kind: 'Update' as const, before: itemOf(900), after: itemOf(1100), ok: true };
    expect(writeUnits({ ...grow, transactional: false }, GSIS).table).toBe(2);
    const shrink = { kind: 'Update' as const, before: itemOf(2100), after: itemOf(100), ok: true };
    expect(writeUnits({ ...shrink, transactional: true }, GSIS).table).toBe(6);
  });

  it('charges a delete by the deleted item, and 1 (2 in a transaction) for a missing item', () => {
    const del = (before: Record<string, unknown> | undefined, transactional: boolean) =>
      writeUnits({ kind: 'Delete', transactional, before, after: undefined, ok: true }, GSIS).table;
    expect(del(itemOf(1500), false)).toBe(2);
    expect(del(undefined, false)).toBe(1);
    expect(del(undefined, true)).toBe(2);
  });

  it('counts a ConditionCheck as a transactional write of its item (minimum 2)', () => {
    const check = (before: Record<string, unknown> | undefined) =>
      writeUnits({ kind: 'ConditionCheck', transactional: true, before, after: before, ok: true }, GSIS);
    expect(check(itemOf(100, { GSI1PK: 'a', GSI1SK: 'b' }))).toEqual({
      table: 2,
      indexes: { GSI1: 0, GSI2: 0, GSI3: 0 },
    });
    expect(check(itemOf(1500)).table).toBe(4);
    expect(check(undefined).table).toBe(2);
  });

  it('adds standard (not doubled) index writes in a transaction', () => {
    const after = itemOf(1500, { GSI1PK: 'a', GSI1SK: 'b', GSI2PK: 'c', GSI2SK: 'd' });
    expect(writeUnits({ kind: 'Put', transactional: true, before: undefined, after, ok: true }, GSIS)).toEqual({
      table: 4,
      indexes: { GSI1: 2, GSI2: 2, GSI3: 0 },
    });
  });

  it('counts a failed write or cancelled transaction on the table only', () => {
    const after = itemOf(1500, { GSI1PK: 'a', GSI1SK: 'b' });
    expect(writeUnits({ kind: 'Put', transactional: true, before: undefined, after, ok: false }, GSIS)).toEqual({
      table: 4,
      indexes: { GSI1: 0, GSI2: 0, GSI3: 0 },
    });
  });

  it('a transactional Delete of a 1,200-byte item in GSI1 and GSI2: table 4, GSI1 2, GSI2 2', () => {
    const before = itemOf(1200, { GSI1PK: 'a', GSI1SK: 'b', GSI2PK: 'c', GSI2SK: 'd' });
    expect(writeUnits({ kind: 'Delete', transactional: true, before, after: undefined, ok: true }, GSIS)).toEqual({
      table: 4,
      indexes: { GSI1: 2, GSI2: 2, GSI3: 0 },
    });
  });
});

describe('index writes per GSI', () => {
  const keyed = (pk: string, sk: string, extra: Record<string, unknown> = {}) => ({
    PK: 'P',
    SK: 'S',
    GSI1PK: pk,
    GSI1SK: sk,
    ...extra,
  });

  it('an update moving GSI1 keys costs 2 index writes (delete old + put new)', () => {
    expect(indexWrites(keyed('NEW#1', 't'), keyed('PROCESSING#1', 't'), GSI1)).toBe(2);
    expect(indexWrites(keyed('a', '1'), keyed('a', '2'), GSI1)).toBe(2);
  });

  it('each of the two writes is per started KB of its own image', () => {
    const before = itemOf(100, { GSI1PK: 'a', GSI1SK: 'b' });
    const after = itemOf(2500, { GSI1PK: 'z', GSI1SK: 'b' });
    expect(indexWrites(before, after, GSI1)).toBe(1 + 3);
  });

  it('a put into the index, a delete from it, and nothing for items outside it', () => {
    expect(indexWrites(undefined, itemOf(1500, { GSI1PK: 'a', GSI1SK: 'b' }), GSI1)).toBe(2);
    expect(indexWrites(itemOf(1500, { GSI1PK: 'a', GSI1SK: 'b' }), undefined, GSI1)).toBe(2);
    expect(indexWrites({ PK: 'P', SK: 'S' }, { PK: 'P', SK: 'S', x: 1 }, GSI1)).toBe(0);
    // Only the partition key: not in the index (sparse index needs both key attributes).
    expect(indexWrites(undefined, { PK: 'P', SK: 'S', GSI1PK: 'a' }, GSI1)).toBe(0);
    // Keys removed by the update (REMOVE GSI2PK, GSI2SK): a delete from the index.
    expect(indexWrites(keyed('a', 'b'), { PK: 'P', SK: 'S' }, GSI1)).toBe(1);
  });

  it('same keys: 1 per KB if any attribute changed (projection ALL), 0 if nothing changed', () => {
    expect(indexWrites(keyed('a', 'b', { n: 1 }), keyed('a', 'b', { n: 2 }), GSI1)).toBe(1);
    expect(indexWrites(keyed('a', 'b', { n: 1 }), keyed('a', 'b', { n: 1 }), GSI1)).toBe(0);
    expect(
      indexWrites(itemOf(100, { GSI1PK: 'a', GSI1SK: 'b' }), itemOf(1500, { GSI1PK: 'a', GSI1SK: 'b' }), GSI1),
    ).toBe(2);
  });
});

describe('read units', () => {
  it('GetItem: 1 per started 4 KB consistent, 0.5 eventual, 2 transactional', () => {
    expect(itemReadUnits(100, 'consistent')).toBe(1);
    expect(itemReadUnits(5000, 'consistent')).toBe(2);
    expect(itemReadUnits(5000, 'eventual')).toBe(1);
    expect(itemReadUnits(100, 'eventual')).toBe(0.5);
    expect(itemReadUnits(0, 'consistent')).toBe(1);
    expect(itemReadUnits(100, 'transactional')).toBe(2);
  });

  it('Query: the summed size of the items read, per started 4 KB', () => {
    expect(queryReadUnits([3000, 2000], false)).toBe(1);
    expect(queryReadUnits([3000, 2000], true)).toBe(2);
    expect(queryReadUnits([100, 100, 100], true)).toBe(1);
    expect(queryReadUnits([], false)).toBe(0.5);
  });
});

describe('sameValue', () => {
  it('compares native DynamoDB values deeply, ignoring map key order', () => {
    expect(sameValue({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameValue({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameValue({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameValue(new Set(['a', 'b']), new Set(['b', 'a']))).toBe(true);
    expect(sameValue(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
  });
});
