/**
 * The request units of a DynamoDB call, estimated from the request alone (the items' sizes before
 * the call are not known without reading them), by AWS's billing rules
 * (docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html and
 * "Transactions: capacity management"):
 *
 * - a write: 1 write unit per started KB of the item (a Put: the item it puts; an Update, a Delete
 *   or a ConditionCheck, whose item size the request does not tell: one KB, which every item this
 *   core writes fits in), twice that inside TransactWriteItems; a ConditionCheck counts as a
 *   transactional write;
 * - a read: 1 read unit per started 4 KB strongly consistent, half eventually consistent, twice in
 *   TransactGetItems; a GetItem or a BatchGetItem key counts one block (Query and Scan are priced
 *   by what they return: {@link responseReadUnits}).
 *
 * Only the table's own units: index writes draw on each index's own capacity. Input in the wire
 * form of the low-level client (AttributeValue maps), which is what a client middleware after the
 * document client's marshalling and an HTTP proxy in front of DynamoDB both see. Used by the import
 * worker's pace (functions/shared/import-pace.ts) and by the local runtime's capacity-limited mode
 * (`npm start -- --write-capacity`).
 */

const WRITE_UNIT_BYTES = 1024;
const READ_UNIT_BYTES = 4096;

/** An attribute value in DynamoDB's wire form ({ S: … }, { N: … }, { M: … } …). */
type AttributeValue = Readonly<Record<string, unknown>>;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** Size of a number: 1 byte per two significant digits, plus 1 (plus 1 when negative). */
function numberBytes(text: string): number {
  let digits = text.trim();
  const negative = digits.startsWith('-');
  digits = digits.replace(/^[+-]/, '').toLowerCase().split('e')[0] ?? '';
  const significant = digits.replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
  return Math.ceil(Math.max(1, significant) / 2) + 1 + (negative ? 1 : 0);
}

/** Bytes of a binary value: raw bytes, or the decoded length of its Base64 text (the JSON wire form). */
function binaryBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength;
  if (typeof value !== 'string') return 0;
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((value.length * 3) / 4) - padding);
}

/** Size of one attribute value in wire form (without its name). */
function valueBytes(value: AttributeValue | undefined): number {
  if (value === undefined || value === null || typeof value !== 'object') return 0;
  if ('S' in value) return utf8(String(value.S));
  if ('N' in value) return numberBytes(String(value.N));
  if ('B' in value) return binaryBytes(value.B);
  if ('BOOL' in value || 'NULL' in value) return 1;
  if ('SS' in value) return ((value.SS as string[]) ?? []).reduce((n, s) => n + utf8(s), 0);
  if ('NS' in value) return ((value.NS as string[]) ?? []).reduce((n, s) => n + numberBytes(s), 0);
  if ('BS' in value) return ((value.BS as unknown[]) ?? []).reduce<number>((n, b) => n + binaryBytes(b), 0);
  if ('L' in value) return ((value.L as AttributeValue[]) ?? []).reduce((n, v) => n + 1 + valueBytes(v), 3);
  if ('M' in value) {
    const entries = Object.entries((value.M ?? {}) as Readonly<Record<string, AttributeValue>>);
    return entries.reduce((n, [key, v]) => n + 1 + utf8(key) + valueBytes(v), 3);
  }
  return 0;
}

/** Size of an item in wire form: for every attribute, its name's UTF-8 bytes and its value's size. */
export function itemBytes(item: Readonly<Record<string, AttributeValue>> | undefined): number {
  if (!item) return 0;
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += utf8(name) + valueBytes(value);
  return bytes;
}

const blocks = (bytes: number, unit: number) => Math.max(1, Math.ceil(bytes / unit));

/** Units of one call, by table name (only the tables it names; an unknown command is none). */
export type UnitsByTable = Map<string, number>;

const add = (units: UnitsByTable, table: unknown, n: number) => {
  if (typeof table !== 'string' || n <= 0) return;
  units.set(table, (units.get(table) ?? 0) + n);
};

type Input = Readonly<Record<string, unknown>>;

/** Write units of one action of TransactWriteItems (doubled) or of a standard write. */
function actionWriteUnits(kind: string, action: Input, factor: number): number {
  if (kind === 'Put')
    return factor * blocks(itemBytes(action.Item as Record<string, AttributeValue>), WRITE_UNIT_BYTES);
  return factor;
}

/** The table write units a write command consumes, by table; empty for a command that writes nothing. */
export function writeUnitsOf(commandName: string | undefined, input: unknown): UnitsByTable {
  const units: UnitsByTable = new Map();
  const request = (input ?? {}) as Input;
  switch (commandName?.replace(/Command$/, '')) {
    case 'PutItem':
      add(units, request.TableName, actionWriteUnits('Put', request, 1));
      break;
    case 'UpdateItem':
    case 'DeleteItem':
      add(units, request.TableName, 1);
      break;
    case 'BatchWriteItem':
      for (const [table, requests] of Object.entries((request.RequestItems ?? {}) as Record<string, Input[]>)) {
        for (const r of requests ?? []) {
          add(units, table, r.PutRequest ? actionWriteUnits('Put', r.PutRequest as Input, 1) : 1);
        }
      }
      break;
    case 'TransactWriteItems':
      for (const entry of (request.TransactItems ?? []) as Input[]) {
        for (const [kind, action] of Object.entries(entry ?? {})) {
          add(units, (action as Input | undefined)?.TableName, actionWriteUnits(kind, (action ?? {}) as Input, 2));
        }
      }
      break;
    default:
      break;
  }
  return units;
}

/**
 * The read units a read command consumes that its request tells (GetItem, BatchGetItem,
 * TransactGetItems: one 4 KB block per item), by table. Query and Scan: see {@link responseReadUnits}.
 */
export function readUnitsOf(commandName: string | undefined, input: unknown): UnitsByTable {
  const units: UnitsByTable = new Map();
  const request = (input ?? {}) as Input;
  const factor = (consistent: unknown) => (consistent === true ? 1 : 0.5);
  switch (commandName?.replace(/Command$/, '')) {
    case 'GetItem':
      add(units, request.TableName, factor(request.ConsistentRead));
      break;
    case 'BatchGetItem':
      for (const [table, keys] of Object.entries((request.RequestItems ?? {}) as Record<string, Input>)) {
        add(units, table, factor(keys?.ConsistentRead) * ((keys?.Keys as unknown[] | undefined)?.length ?? 0));
      }
      break;
    case 'TransactGetItems':
      for (const entry of (request.TransactItems ?? []) as Input[]) add(units, (entry?.Get as Input)?.TableName, 2);
      break;
    default:
      break;
  }
  return units;
}

/** Read units of a Query or Scan page from the bytes it returned (an approximation of the items read). */
export function responseReadUnits(input: unknown, responseBytes: number): number {
  const consistent = (input as Input | undefined)?.ConsistentRead === true;
  return (consistent ? 1 : 0.5) * blocks(responseBytes, READ_UNIT_BYTES);
}

/** The table a call is about (the first one it names), for calls that name one. */
export function tableOf(input: unknown): string | undefined {
  const request = (input ?? {}) as Input;
  if (typeof request.TableName === 'string') return request.TableName;
  const items = request.RequestItems as Record<string, unknown> | undefined;
  if (items) return Object.keys(items)[0];
  for (const entry of (request.TransactItems ?? []) as Input[]) {
    for (const action of Object.values(entry ?? {})) {
      const table = (action as Input | undefined)?.TableName;
      if (typeof table === 'string') return table;
    }
  }
  return undefined;
}
