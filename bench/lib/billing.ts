/**
 * DynamoDB request units computed with AWS's published billing rules, from item images (pure
 * functions; the bench's recording middleware supplies the before/after images, see
 * in-process.ts). DynamoDB Local's own ConsumedCapacity does not follow these rules for
 * transactions and global secondary indexes, so the cost model uses these figures and shows
 * Local's beside them only as a cross-check.
 *
 * Item size (docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
 * the sum over attributes of the UTF-8 length of the name plus the size of the value, where
 * - string: its UTF-8 bytes; binary: its raw bytes;
 * - number: 1 byte per two significant digits (leading and trailing zeroes trimmed) + 1 byte
 *   (+1 for a negative number, as common calculators count it);
 * - boolean, null: 1 byte;
 * - list / map: 3 bytes + for each element 1 byte + its size (+ the UTF-8 length of the key, for a map);
 * - string / number / binary set: the sum of its elements' sizes.
 * Values are in the DocumentClient's native form (what lib-dynamodb marshals: string, number,
 * bigint, boolean, null, Uint8Array, array, Set, plain object); undefined attributes are skipped
 * (the clients marshal with removeUndefinedValues).
 *
 * Units (on-demand, aws.amazon.com/dynamodb/pricing/on-demand and the developer guide's
 * "Read/write capacity mode" and "Transactions: capacity management" pages):
 * - standard write (PutItem, UpdateItem, DeleteItem, each BatchWriteItem element): 1 WRU per
 *   started 1 KB of the LARGER of the item's size before and after the write (a delete: the
 *   deleted item's size; a write or delete of a missing, empty result still costs 1);
 * - transactional write (each Put/Update/Delete of TransactWriteItems): 2 WRU per started 1 KB,
 *   same size rule;
 * - ConditionCheck in TransactWriteItems: counted as a transactional write of its item (2 per
 *   started KB, minimum 2). This is the conservative reading of AWS's text (it bills condition
 *   checks as transactional writes; whether by the checked item's size is not spelt out);
 * - each global secondary index, for every written table item (index writes are standard,
 *   never doubled, even inside a transaction; projection ALL, so an index entry is the item):
 *   - the item has the index's partition + sort key attributes after and not before: 1 write per
 *     started KB of the after image (put);
 *   - before and not after: 1 per started KB of the before image (delete);
 *   - both, same key values: 1 per started KB of the after image if any attribute changed,
 *     0 if nothing changed;
 *   - both, different key values: 2 writes (delete the old entry, put the new one), each per
 *     started KB of its own image;
 *   - neither: 0;
 * - reads: GetItem / each BatchGetItem key: 1 RRU per started 4 KB if strongly consistent,
 *   0.5 if eventually consistent (a missing item still costs the minimum); Query / Scan: the
 *   same per started 4 KB of the SUMMED size of all items read (before any filter or
 *   projection; minimum one 4 KB step); TransactGetItems: 2 per started 4 KB per item.
 * A failed conditional write or a cancelled transaction still consumes write capacity on AWS:
 * the bench counts the same table units as if it had succeeded (sizes of the image before and
 * of a Put's item) and no index writes (nothing reached the indexes), and marks the call.
 */

export type Item = Readonly<Record<string, unknown>>;

export interface IndexKeys {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

const WRITE_UNIT_BYTES = 1024;
const READ_UNIT_BYTES = 4096;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** Size of a DynamoDB number: 1 byte per two significant digits + 1 (+1 if negative). */
export function numberSize(value: number | bigint | string): number {
  let text = typeof value === 'string' ? value.trim() : value.toString();
  let negative = false;
  if (text.startsWith('-')) {
    negative = true;
    text = text.slice(1);
  } else if (text.startsWith('+')) {
    text = text.slice(1);
  }
  const mantissa = text.toLowerCase().split('e')[0] ?? '';
  const digits = mantissa.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  const significant = Math.max(1, digits.length);
  return Math.ceil(significant / 2) + 1 + (negative ? 1 : 0);
}

/** Size of one attribute value (without its name). */
function valueSize(value: unknown): number {
  if (value === null) return 1;
  switch (typeof value) {
    case 'string':
      return utf8(value);
    case 'number':
    case 'bigint':
      return numberSize(value);
    case 'boolean':
      return 1;
    case 'undefined':
      return 0;
    default:
      break;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    let sum = 0;
    for (const element of value) sum += valueSize(element);
    return sum;
  }
  if (Array.isArray(value)) {
    let sum = 3;
    for (const element of value) if (element !== undefined) sum += 1 + valueSize(element);
    return sum;
  }
  if (typeof value === 'object') {
    // A NumberValue (lib-dynamodb's wrapper for numbers beyond double precision).
    const maybeNumber = value as { constructor?: { name?: string }; value?: unknown };
    if (maybeNumber.constructor?.name === 'NumberValue' && typeof maybeNumber.value === 'string') {
      return numberSize(maybeNumber.value);
    }
    let sum = 3;
    for (const [key, element] of Object.entries(value)) {
      if (element !== undefined) sum += 1 + utf8(key) + valueSize(element);
    }
    return sum;
  }
  throw new Error(`no DynamoDB size for a ${typeof value}`);
}

/** Size of an item: UTF-8 attribute names plus value sizes. 0 for a missing item. */
export function itemSize(item: Item | undefined): number {
  if (!item) return 0;
  let sum = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) sum += utf8(name) + valueSize(value);
  return sum;
}

/** Started blocks of `unit` bytes, at least one. */
export function blocks(bytes: number, unit: number): number {
  return Math.max(1, Math.ceil(bytes / unit));
}

export type WriteKind = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

export interface WriteUnits {
  /** Table write request units. */
  readonly table: number;
  /** Index write request units per index name (every index present, 0 when untouched). */
  readonly indexes: Record<string, number>;
}

/** Index write units for one table item going from `before` to `after` (undefined = absent). */
export function indexWrites(before: Item | undefined, after: Item | undefined, index: IndexKeys): number {
  const has = (item: Item | undefined) =>
    item !== undefined && item[index.partitionKey] !== undefined && item[index.sortKey] !== undefined;
  const inBefore = has(before);
  const inAfter = has(after);
  const kb = (item: Item | undefined) => blocks(itemSize(item), WRITE_UNIT_BYTES);
  if (!inBefore && !inAfter) return 0;
  if (inAfter && !inBefore) return kb(after);
  if (inBefore && !inAfter) return kb(before);
  const b = before as Item;
  const a = after as Item;
  const sameKeys =
    sameValue(b[index.partitionKey], a[index.partitionKey]) && sameValue(b[index.sortKey], a[index.sortKey]);
  if (!sameKeys) return kb(before) + kb(after);
  return sameValue(b, a) ? 0 : kb(after);
}

/**
 * Units of one write action on one item. `ok` false: the call failed or the transaction was
 * cancelled; the table units are counted all the same (AWS bills them), with `after` = what the
 * write would have stored as far as the bench knows (a Put's item; otherwise the before image).
 */
export function writeUnits(
  action: {
    readonly kind: WriteKind;
    readonly transactional: boolean;
    readonly before: Item | undefined;
    readonly after: Item | undefined;
    readonly ok: boolean;
  },
  indexes: readonly IndexKeys[],
): WriteUnits {
  const factor = action.transactional || action.kind === 'ConditionCheck' ? 2 : 1;
  const noIndexWrites = Object.fromEntries(indexes.map((i) => [i.indexName, 0]));
  if (action.kind === 'ConditionCheck') {
    return { table: 2 * blocks(itemSize(action.before), WRITE_UNIT_BYTES), indexes: noIndexWrites };
  }
  const after = action.kind === 'Delete' && action.ok ? undefined : action.after;
  const size = Math.max(itemSize(action.before), itemSize(after));
  const table = factor * blocks(size, WRITE_UNIT_BYTES);
  if (!action.ok) return { table, indexes: noIndexWrites };
  return {
    table,
    indexes: Object.fromEntries(indexes.map((i) => [i.indexName, indexWrites(action.before, after, i)])),
  };
}

/** Read units of one item read (GetItem, a BatchGetItem key, a TransactGetItems element). */
export function itemReadUnits(size: number, mode: 'eventual' | 'consistent' | 'transactional'): number {
  const factor = mode === 'eventual' ? 0.5 : mode === 'consistent' ? 1 : 2;
  return factor * blocks(size, READ_UNIT_BYTES);
}

/** Read units of one Query or Scan page: the summed size of the items read, in started 4 KB. */
export function queryReadUnits(sizes: readonly number[], consistent: boolean): number {
  const total = sizes.reduce((s, n) => s + n, 0);
  return (consistent ? 1 : 0.5) * blocks(total, READ_UNIT_BYTES);
}

/** Deep equality of two DynamoDB values in native form (key order of maps ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  }
  if (a instanceof Set || b instanceof Set) {
    if (!(a instanceof Set && b instanceof Set) || a.size !== b.size) return false;
    for (const x of a) if (![...b].some((y) => sameValue(x, y))) return false;
    return true;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!(Array.isArray(a) && Array.isArray(b)) || a.length !== b.length) return false;
    return a.every((x, i) => sameValue(x, b[i]));
  }
  const ea = Object.entries(a as Record<string, unknown>).filter(([, v]) => v !== undefined);
  const eb = new Map(Object.entries(b as Record<string, unknown>).filter(([, v]) => v !== undefined));
  if (ea.length !== eb.size) return false;
  return ea.every(([k, v]) => eb.has(k) && sameValue(v, eb.get(k)));
}
