/**
 * Queries: every page of a Query as an async sequence (callers act page by page, e.g. purges), and
 * the key conditions built from the table schema — partition and sort-key attribute names come
 * from functions/storage/table.ts, never typed by hand in a store.
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { type IndexName, TABLE_SCHEMA } from '../table.js';
import { retrying } from './retry.js';
import type { Item, Table } from './table.js';

/** The key attribute names of the table (no index) or of one global secondary index. */
export function keyAttributes(index?: IndexName): { pk: string; sk: string } {
  if (index === undefined) return { pk: TABLE_SCHEMA.partitionKey, sk: TABLE_SCHEMA.sortKey };
  const found = TABLE_SCHEMA.globalIndexes.find((g) => g.indexName === index);
  if (!found) throw new Error(`unknown index ${index}`);
  return { pk: found.partitionKey, sk: found.sortKey };
}

type SortCondition =
  | { readonly beginsWith: string }
  | { readonly before: string }
  | { readonly after: string }
  | { readonly upTo: string };

/** One partition of the table or of an index, optionally narrowed by a sort-key condition. */
export interface PartitionQuery {
  readonly index?: IndexName;
  readonly pk: string;
  readonly sk?: SortCondition;
}

/** KeyConditionExpression with its names and values for a {@link PartitionQuery}. */
export function partitionCondition(query: PartitionQuery): Pick<
  QueryCommandInput,
  'IndexName' | 'KeyConditionExpression'
> & {
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
} {
  const { pk, sk } = keyAttributes(query.index);
  const names: Record<string, string> = { '#kpk': pk };
  const values: Record<string, unknown> = { ':kpk': query.pk };
  let expression = '#kpk = :kpk';
  if (query.sk) {
    names['#ksk'] = sk;
    const c = query.sk;
    if ('beginsWith' in c) {
      expression += ' AND begins_with(#ksk, :ksk)';
      values[':ksk'] = c.beginsWith;
    } else if ('before' in c) {
      expression += ' AND #ksk < :ksk';
      values[':ksk'] = c.before;
    } else if ('after' in c) {
      expression += ' AND #ksk > :ksk';
      values[':ksk'] = c.after;
    } else {
      expression += ' AND #ksk <= :ksk';
      values[':ksk'] = c.upTo;
    }
  }
  return {
    ...(query.index ? { IndexName: query.index } : {}),
    KeyConditionExpression: expression,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

export interface QueryOptions {
  /** Attributes to return (names); every attribute when omitted. */
  readonly attributes?: readonly string[];
  /** A filter over other attributes, with its own names (`#…`) and values (`:…`). */
  readonly filter?: {
    readonly expression: string;
    readonly names?: Record<string, string>;
    readonly values?: Record<string, unknown>;
  };
  readonly consistent?: boolean;
  /** @default true (ascending sort key) */
  readonly forward?: boolean;
  /** Items per page (DynamoDB's Limit). */
  readonly pageSize?: number;
  readonly startKey?: Item;
}

/** The QueryCommand input of one partition query. */
function queryInput(table: Table, query: PartitionQuery, options: QueryOptions = {}): QueryCommandInput {
  const condition = partitionCondition(query);
  const names = { ...condition.ExpressionAttributeNames, ...(options.filter?.names ?? {}) };
  const projection = options.attributes?.map((a, i) => {
    names[`#q${i}`] = a;
    return `#q${i}`;
  });
  return {
    TableName: table.name,
    ...condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ...(options.filter?.values ?? {}) },
    ...(options.filter ? { FilterExpression: options.filter.expression } : {}),
    ...(projection ? { ProjectionExpression: projection.join(', ') } : {}),
    ...(options.consistent ? { ConsistentRead: true } : {}),
    ...(options.forward === false ? { ScanIndexForward: false } : {}),
    ...(options.pageSize !== undefined ? { Limit: options.pageSize } : {}),
    ...(options.startKey ? { ExclusiveStartKey: options.startKey } : {}),
  };
}

/** Attempts of a read (reads are idempotent: every transient failure is retried). */
const READ_ATTEMPTS = 6;

/** One page of a query and the key to continue from (undefined on the last page). */
export async function queryPage(
  table: Table,
  query: PartitionQuery,
  options: QueryOptions = {},
): Promise<{ items: Item[]; next: Item | undefined }> {
  const input = queryInput(table, query, options);
  const out = await retrying(() => table.client().send(new QueryCommand(input)), { attempts: READ_ATTEMPTS });
  return { items: (out.Items as Item[] | undefined) ?? [], next: out.LastEvaluatedKey };
}

/** Every page of a query, following LastEvaluatedKey. */
export async function* queryPages(
  table: Table,
  query: PartitionQuery,
  options: QueryOptions = {},
): AsyncGenerator<Item[]> {
  let startKey = options.startKey;
  do {
    const page = await queryPage(table, query, { ...options, ...(startKey ? { startKey } : {}) });
    yield page.items;
    startKey = page.next;
  } while (startKey);
}

/** Every item a query matches, across pages. Only for collections known to be small. */
export async function queryAll(table: Table, query: PartitionQuery, options: QueryOptions = {}): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(table, query, options)) items.push(...page);
  return items;
}
