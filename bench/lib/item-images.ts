/**
 * Item images for the bench's unit accounting: the current items of the keys a call touches, read
 * with a SEPARATE, unrecorded DocumentClient (consistent BatchGet), and the read units of a read
 * call computed from the full items it read (re-read without projection or filter when it had one).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE_SCHEMA } from '#functions/storage/table.js';
import { type Item, itemReadUnits, itemSize, queryReadUnits } from './billing.js';

export const keyOf = (item: Item): Record<string, unknown> => ({
  [TABLE_SCHEMA.partitionKey]: item[TABLE_SCHEMA.partitionKey],
  [TABLE_SCHEMA.sortKey]: item[TABLE_SCHEMA.sortKey],
});
export const keyId = (table: string, key: Record<string, unknown>) =>
  `${table}\u0000${JSON.stringify([key[TABLE_SCHEMA.partitionKey], key[TABLE_SCHEMA.sortKey]])}`;

/** Names (`#x`) and values (`:x`) an expression uses, to drop the unused ones from a re-read. */
function used<T>(expression: string, all: Record<string, T> | undefined): Record<string, T> | undefined {
  if (!all) return undefined;
  const picked = Object.entries(all).filter(([token]) => new RegExp(`${token}(?![A-Za-z0-9_])`).test(expression));
  return picked.length > 0 ? Object.fromEntries(picked) : undefined;
}

export interface ImageReader {
  /** Current items of these keys (consistent reads), by keyId; missing keys are absent. */
  images(keys: readonly { table: string; key: Record<string, unknown> }[]): Promise<Map<string, Item>>;
  /** Read units of one read call, by AWS's rules. */
  readUnits(command: string, input: Record<string, unknown>, output: Record<string, unknown>): Promise<number>;
}

export function createImageReader(dynamodbEndpoint: string): ImageReader {
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

  return { images, readUnits };
}
