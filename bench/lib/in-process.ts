/**
 * The production handlers loaded IN the bench process, pointed at the runtime's DynamoDB Local,
 * with a recording middleware on the shared DocumentClient (bench process only; production code is
 * untouched). Used for what the child process cannot tell us: the exact DynamoDB calls of one
 * imported user (the write plan the bare baseline replays) and the request units they cost.
 *
 * Units: DynamoDB Local's ConsumedCapacity does not follow AWS's billing rules (transactions are
 * not doubled per KB, index writes are folded in or missing), so with `images` on, the middleware
 * reads the current items of every key a write touches with a SEPARATE, unrecorded
 * DocumentClient (consistent BatchGet) before forwarding the call, and again after it succeeded,
 * and computes the units from those images with AWS's rules (billing.ts). Reads are computed from
 * the full items read (re-read without projection or filter when the call had one). Local's own
 * figure (ReturnConsumedCapacity 'INDEXES': table + per-index breakdown) is kept beside it.
 * The extra reads slow the calls down, so timings are taken from a pass with `images` off.
 *
 * Concurrent calls may touch the same shared item (a counter shard) between an image read and
 * the write; that can only blur a counter's size by a few bytes (counters carry no index keys).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { TABLE_SCHEMA } from '#functions/storage/table.js';
import {
  type Item,
  itemReadUnits,
  itemSize,
  queryReadUnits,
  type WriteKind,
  type WriteUnits,
  writeUnits,
} from './billing.js';

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

const keyOf = (item: Item): Record<string, unknown> => ({
  [TABLE_SCHEMA.partitionKey]: item[TABLE_SCHEMA.partitionKey],
  [TABLE_SCHEMA.sortKey]: item[TABLE_SCHEMA.sortKey],
});
const keyId = (table: string, key: Record<string, unknown>) =>
  `${table}\u0000${JSON.stringify([key[TABLE_SCHEMA.partitionKey], key[TABLE_SCHEMA.sortKey]])}`;

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
function unprocessedWrites(output: Record<string, unknown>): Set<string> {
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

/** Names (`#x`) and values (`:x`) an expression uses, to drop the unused ones from a re-read. */
function used<T>(expression: string, all: Record<string, T> | undefined): Record<string, T> | undefined {
  if (!all) return undefined;
  const picked = Object.entries(all).filter(([token]) => new RegExp(`${token}(?![A-Za-z0-9_])`).test(expression));
  return picked.length > 0 ? Object.fromEntries(picked) : undefined;
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

export async function loadInProcess(dynamodbEndpoint: string, tableName: string): Promise<InProcess> {
  // The handlers read these lazily; set them before the first client is created.
  process.env.TABLE_NAME = tableName;
  process.env.DYNAMODB_ENDPOINT = dynamodbEndpoint;
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.LOG_LEVEL = 'error';
  const [{ getDocumentClient }, deps, { validateStagingRequest }, { stageUsers }, { createImportWorker }] =
    await Promise.all([
      import('#functions/shared/clients.js'),
      import('#functions/storage/staging-deps.js'),
      import('#functions/domain/bulk-import/validate-request.js'),
      import('#functions/domain/bulk-import/staging.js'),
      import('../../functions/workers/import-worker/handler.js'),
    ]);
  // The unrecorded client for item images (its own middleware stack).
  const raw = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: dynamodbEndpoint,
      region: process.env.AWS_REGION,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 8,
    }),
    { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } },
  );

  /** Current items of these keys (consistent reads), by keyId; missing keys are absent. */
  async function images(keys: readonly { table: string; key: Record<string, unknown> }[]): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    const byTable = new Map<string, Map<string, Record<string, unknown>>>();
    for (const { table, key } of keys) {
      const group = byTable.get(table) ?? new Map();
      group.set(keyId(table, key), key);
      byTable.set(table, group);
    }
    for (const [table, group] of byTable) {
      const all = [...group.values()];
      for (let i = 0; i < all.length; i += 100) {
        let pending = all.slice(i, i + 100);
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt > 10) throw new Error('image reads: unprocessed keys kept coming back');
          const out = await raw.send(
            new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
          );
          for (const item of out.Responses?.[table] ?? []) found.set(keyId(table, keyOf(item)), item);
          pending = (out.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
        }
      }
    }
    return found;
  }

  /** Sizes of the items a Query/Scan page read: its own items, or a re-read without projection/filter. */
  async function itemsRead(command: string, input: Record<string, unknown>, output: Record<string, unknown>) {
    const narrowed =
      input.ProjectionExpression !== undefined ||
      input.FilterExpression !== undefined ||
      (input.Select !== undefined && input.Select !== 'ALL_ATTRIBUTES');
    if (!narrowed) return ((output.Items ?? []) as Item[]).map(itemSize);
    const expression = String(input.KeyConditionExpression ?? '');
    const base = {
      TableName: input.TableName as string,
      IndexName: input.IndexName as string | undefined,
      ConsistentRead: input.ConsistentRead as boolean | undefined,
      Limit: input.Limit as number | undefined,
      ExclusiveStartKey: input.ExclusiveStartKey as Record<string, unknown> | undefined,
      ExpressionAttributeNames: used(expression, input.ExpressionAttributeNames as Record<string, string>),
      ExpressionAttributeValues: used(expression, input.ExpressionAttributeValues as Record<string, unknown>),
    };
    const out =
      command === 'QueryCommand'
        ? await raw.send(
            new QueryCommand({
              ...base,
              KeyConditionExpression: expression,
              ScanIndexForward: input.ScanIndexForward as boolean | undefined,
            }),
          )
        : await raw.send(
            new ScanCommand({
              ...base,
              Segment: input.Segment as number | undefined,
              TotalSegments: input.TotalSegments as number | undefined,
            }),
          );
    return (out.Items ?? []).map(itemSize);
  }

  async function readUnits(command: string, input: Record<string, unknown>, output: Record<string, unknown>) {
    const mode = input.ConsistentRead === true ? 'consistent' : 'eventual';
    switch (command) {
      case 'GetItemCommand': {
        const table = input.TableName as string;
        const key = input.Key as Record<string, unknown>;
        const item =
          input.ProjectionExpression === undefined
            ? (output.Item as Item | undefined)
            : (await images([{ table, key }])).get(keyId(table, key));
        return itemReadUnits(itemSize(item), mode);
      }
      case 'BatchGetItemCommand': {
        let units = 0;
        const left = (output.UnprocessedKeys ?? {}) as Record<string, { Keys?: Item[] }>;
        for (const [table, spec] of Object.entries(input.RequestItems as Record<string, Record<string, unknown>>)) {
          const skipped = new Set((left[table]?.Keys ?? []).map((k) => keyId(table, k)));
          const keys = ((spec.Keys ?? []) as Record<string, unknown>[]).filter((k) => !skipped.has(keyId(table, k)));
          const full = await images(keys.map((key) => ({ table, key })));
          const tableMode = spec.ConsistentRead === true ? 'consistent' : 'eventual';
          for (const key of keys) units += itemReadUnits(itemSize(full.get(keyId(table, key))), tableMode);
        }
        return units;
      }
      case 'QueryCommand':
      case 'ScanCommand':
        return queryReadUnits(await itemsRead(command, input, output), input.ConsistentRead === true);
      case 'TransactGetItemsCommand': {
        const gets = (
          (input.TransactItems ?? []) as { Get: { TableName: string; Key: Record<string, unknown> } }[]
        ).map((t) => ({ table: t.Get.TableName, key: t.Get.Key }));
        const full = await images(gets);
        return gets.reduce((s, g) => s + itemReadUnits(itemSize(full.get(keyId(g.table, g.key))), 'transactional'), 0);
      }
      default:
        return 0;
    }
  }

  const state: InProcess = {
    calls: [],
    phase: 'setup',
    images: true,
    async stage(appId, users) {
      const app = await deps.loadAppImportContext(appId);
      if (!app) throw new Error(`app ${appId} does not exist`);
      const validation = validateStagingRequest({ users }, { ...app.validation, now: Date.now(), newId: randomId });
      if (!validation.ok) throw new Error(`invalid users: ${JSON.stringify(validation.body).slice(0, 300)}`);
      const sent: { appId: string; id: string }[] = [];
      await stageUsers(
        {
          store: deps.stagingStore,
          // No queue: the rows stay NEW and only this process imports them (the runtime's
          // reconciler re-sends rows only minutes later).
          publisher: { publish: async (messages) => void sent.push(...messages) },
          now: Date.now,
          newId: randomId,
          warn: () => undefined,
        },
        appId,
        validation.users,
      );
      return sent;
    },
    async importBatch(messages) {
      const event: SQSEvent = {
        Records: messages.map((m, i) => ({
          messageId: `bench-${i}-${m.id}`,
          receiptHandle: 'bench',
          body: JSON.stringify({ v: 1, appId: m.appId, id: m.id }),
          attributes: {
            ApproximateReceiveCount: '1',
            SentTimestamp: String(Date.now()),
            SenderId: 'bench',
            ApproximateFirstReceiveTimestamp: String(Date.now()),
          },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:local:000000000000:bench',
          awsRegion: 'local',
        })),
      };
      const start = performance.now();
      const out = await worker(event);
      const ms = performance.now() - start;
      if (out.batchItemFailures.length > 0) throw new Error(`import worker failed ${out.batchItemFailures.length}`);
      return ms;
    },
  };
  const worker = createImportWorker();
  getDocumentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      const command = context.commandName ?? 'unknown';
      const kind = commandKind(command);
      const phase = state.phase;
      const imaging = state.images && kind !== 'other';
      const copy = structuredClone(input);
      const actions = kind === 'write' ? writeActions(command, input) : [];
      const before = imaging && kind === 'write' ? await images(actions) : new Map<string, Item>();
      const forwarded = kind === 'other' ? args : { ...args, input: { ...input, ReturnConsumedCapacity: 'INDEXES' } };
      const start = performance.now();
      let out: Awaited<ReturnType<typeof next>> | undefined;
      let failure: unknown;
      try {
        out = await next(forwarded);
      } catch (error) {
        failure = error;
      }
      const ms = performance.now() - start;
      const ok = failure === undefined;
      const output = (out?.output ?? {}) as Record<string, unknown>;
      let computed: ComputedUnits | undefined;
      let recordedActions: RecordedAction[] = [];
      if (imaging && kind === 'read') {
        computed = {
          readUnits: ok ? await readUnits(command, input, output) : 0,
          tableWriteUnits: 0,
          indexWriteUnits: Object.fromEntries(INDEX_NAMES.map((n) => [n, 0])),
        };
      } else if (imaging && kind === 'write') {
        const after = ok ? await images(actions) : new Map<string, Item>();
        const skipped = ok ? unprocessedWrites(output) : new Set<string>();
        const transactional = command === 'TransactWriteItemsCommand';
        recordedActions = actions
          .filter((a) => !skipped.has(keyId(a.table, a.key)))
          .map((a) => {
            const id = keyId(a.table, a.key);
            const b = before.get(id);
            // Failed: nothing was written; bill what the write would have stored as far as known.
            const image = ok ? after.get(id) : a.kind === 'Put' ? a.putItem : b;
            const units = writeUnits({ kind: a.kind, transactional, before: b, after: image, ok }, INDEXES);
            const entity = (image ?? b ?? a.putItem)?.entityType;
            return {
              kind: a.kind,
              key: a.key,
              entityType: typeof entity === 'string' ? entity : undefined,
              beforeBytes: itemSize(b),
              afterBytes: a.kind === 'Delete' && ok ? 0 : itemSize(image),
              units,
            };
          });
        computed = {
          readUnits: 0,
          tableWriteUnits: recordedActions.reduce((s, a) => s + a.units.table, 0),
          indexWriteUnits: Object.fromEntries(
            INDEX_NAMES.map((n) => [n, recordedActions.reduce((s, a) => s + (a.units.indexes[n] ?? 0), 0)]),
          ),
        };
      }
      state.calls.push({
        phase,
        command,
        kind,
        input: copy,
        ms,
        ok,
        ...(ok ? {} : { error: (failure as { name?: string }).name ?? String(failure) }),
        computed,
        actions: recordedActions,
        reported: reportedCapacity(output.ConsumedCapacity),
      });
      if (!ok) throw failure;
      return out as Awaited<ReturnType<typeof next>>;
    },
    { step: 'initialize', name: 'benchRecordCapacity' },
  );
  return state;
}

function randomId(): string {
  return crypto.randomUUID();
}
