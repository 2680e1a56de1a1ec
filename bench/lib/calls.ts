/**
 * The recorded DynamoDB calls of the bench and what is derived from them without DynamoDB: the
 * write actions of a call, DynamoDB Local's reported capacity, the kind of a command.
 */ import { TABLE_SCHEMA } from '#functions/storage/table.js';
import type { Item, WriteKind, WriteUnits } from './billing.js';
import { keyId, keyOf } from './item-images.js';

export const INDEXES = TABLE_SCHEMA.globalIndexes;
export const INDEX_NAMES: readonly string[] = INDEXES.map((i) => i.indexName);

/** DynamoDB Local's ConsumedCapacity of one call (ReturnConsumedCapacity 'INDEXES'). */
export interface ReportedCapacity {
  readonly total: number;
  /** Sum of `Table.CapacityUnits`; undefined when Local gave no table breakdown. */
  readonly table: number | undefined;
  /** Sum of `GlobalSecondaryIndexes[name].CapacityUnits` per index name. */
  readonly indexes: Record<string, number>;
}

/** One write action (an item of a transaction or batch, or the single item of a PutItem…). */
export interface RecordedAction {
  readonly kind: WriteKind;
  readonly key: Record<string, unknown>;
  /** `entityType` of the item (after, else before, else the Put's item). */
  readonly entityType: string | undefined;
  readonly beforeBytes: number;
  readonly afterBytes: number;
  readonly units: WriteUnits;
}

/** Units computed with AWS's rules (billing.ts). */
export interface ComputedUnits {
  readonly readUnits: number;
  readonly tableWriteUnits: number;
  readonly indexWriteUnits: Record<string, number>;
}

export interface RecordedCall {
  readonly phase: string;
  readonly command: string;
  readonly kind: 'read' | 'write' | 'other';
  /** The DocumentClient input (deep copy), before marshalling. */
  readonly input: Record<string, unknown>;
  readonly ms: number;
  /** False: the call threw (condition failure, cancelled transaction…); units are still counted. */
  readonly ok: boolean;
  readonly error?: string;
  /** Undefined when the pass ran without images (timing pass). */
  readonly computed: ComputedUnits | undefined;
  /** Write actions with their images' sizes and units (empty for reads or without images). */
  readonly actions: readonly RecordedAction[];
  /** Undefined when Local returned no ConsumedCapacity (seen for GetItem, and on errors). */
  readonly reported: ReportedCapacity | undefined;
}

const READS = new Set([
  'GetItemCommand',
  'BatchGetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'TransactGetItemsCommand',
]);
const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);

export function commandKind(command: string): RecordedCall['kind'] {
  return READS.has(command) ? 'read' : WRITES.has(command) ? 'write' : 'other';
}

export function reportedCapacity(consumed: unknown): ReportedCapacity | undefined {
  if (consumed === undefined || consumed === null) return undefined;
  const list = (Array.isArray(consumed) ? consumed : [consumed]) as {
    CapacityUnits?: number;
    Table?: { CapacityUnits?: number };
    GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
  }[];
  let total = 0;
  let table: number | undefined;
  const indexes: Record<string, number> = Object.fromEntries(INDEX_NAMES.map((n) => [n, 0]));
  for (const c of list) {
    total += c.CapacityUnits ?? 0;
    if (c.Table?.CapacityUnits !== undefined) table = (table ?? 0) + c.Table.CapacityUnits;
    for (const [name, gsi] of Object.entries(c.GlobalSecondaryIndexes ?? {})) {
      indexes[name] = (indexes[name] ?? 0) + (gsi.CapacityUnits ?? 0);
    }
  }
  return { total, table, indexes };
}

interface WriteAction {
  readonly kind: WriteKind;
  readonly table: string;
  readonly key: Record<string, unknown>;
  /** The item of a Put (what it would store). */
  readonly putItem?: Item;
}

type Spec = { TableName?: string; Key?: Item; Item?: Item };

/** The items a write call touches, in order. */
export function writeActions(command: string, input: Record<string, unknown>): WriteAction[] {
  const single = (kind: WriteKind, spec: Spec): WriteAction => {
    const table = spec.TableName ?? '';
    if (kind === 'Put') return { kind, table, key: keyOf(spec.Item ?? {}), putItem: spec.Item ?? {} };
    return { kind, table, key: { ...(spec.Key ?? {}) } };
  };
  switch (command) {
    case 'PutItemCommand':
      return [single('Put', input as Spec)];
    case 'UpdateItemCommand':
      return [single('Update', input as Spec)];
    case 'DeleteItemCommand':
      return [single('Delete', input as Spec)];
    case 'BatchWriteItemCommand': {
      const requests = (input.RequestItems ?? {}) as Record<
        string,
        { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]
      >;
      return Object.entries(requests).flatMap(([table, list]) =>
        list.map((r) =>
          r.PutRequest
            ? single('Put', { TableName: table, Item: r.PutRequest.Item })
            : single('Delete', { TableName: table, Key: r.DeleteRequest?.Key }),
        ),
      );
    }
    case 'TransactWriteItemsCommand':
      return ((input.TransactItems ?? []) as Record<string, Spec>[]).map((t) => {
        const kind = (['Put', 'Update', 'Delete', 'ConditionCheck'] as const).find((k) => t[k]);
        if (!kind) throw new Error(`unknown transaction item ${Object.keys(t).join(',')}`);
        return single(kind, t[kind] as Spec);
      });
    default:
      return [];
  }
}

/** Keys of a BatchWriteItem left unprocessed (not written, not billed). */
export function unprocessedWrites(output: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  const left = (output.UnprocessedItems ?? {}) as Record<
    string,
    { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]
  >;
  for (const [table, list] of Object.entries(left)) {
    for (const r of list) out.add(keyId(table, r.PutRequest ? keyOf(r.PutRequest.Item) : (r.DeleteRequest?.Key ?? {})));
  }
  return out;
}

export interface InProcess {
  readonly calls: RecordedCall[];
  phase: string;
  /** Read item images around writes and compute AWS units (slower calls; off for timing). */
  images: boolean;
  /** Stages `users` (raw payloads) into `appId` without sending queue messages; returns the messages. */
  stage(appId: string, users: readonly unknown[]): Promise<{ appId: string; id: string }[]>;
  /** Invokes the import worker handler with one SQS event of these messages; returns its duration. */
  importBatch(messages: readonly { appId: string; id: string }[]): Promise<number>;
}
