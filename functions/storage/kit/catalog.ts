/**
 * Tables themselves, as DynamoDB describes them: whether a table can hold what an app owns (it
 * exists, is active, and has this core's keys and indexes from functions/storage/table.ts), and —
 * where the runtime provisions tables (the local runtime, never Lambda) — creating a missing one
 * from that same definition.
 */
import { CreateTableCommand, DescribeTableCommand, type TableDescription } from '@aws-sdk/client-dynamodb';
import { createTableInput, TABLE_SCHEMA } from '../table.js';
import type { AwsError } from './errors.js';
import { sleep, type Table } from './table.js';

const errorName = (error: unknown) => (error as AwsError).name;

/** The table's description; undefined when it does not exist. */
async function describe(table: Table): Promise<TableDescription | undefined> {
  try {
    return (await table.client().send(new DescribeTableCommand({ TableName: table.name }))).Table;
  } catch (error) {
    if (errorName(error) === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

type KeySchema = { AttributeName?: string | undefined; KeyType?: string | undefined }[] | undefined;

/** What keeps a key schema from being `pk` (partition) and `sk` (sort), both strings; undefined when it is. */
function keyMismatch(
  schema: KeySchema,
  types: ReadonlyMap<string, string>,
  pk: string,
  sk: string,
  where: string,
): string | undefined {
  const hash = schema?.find((k) => k.KeyType === 'HASH')?.AttributeName;
  const range = schema?.find((k) => k.KeyType === 'RANGE')?.AttributeName;
  if (hash !== pk || range !== sk) {
    return `${where} must be ${pk} (partition key) and ${sk} (sort key), not ${hash ?? 'none'} and ${range ?? 'none'}`;
  }
  for (const name of [pk, sk]) {
    if (types.get(name) !== 'S') return `${where}: ${name} must be a string attribute`;
  }
  return undefined;
}

/**
 * What keeps the described table from being one of this core's tables, or undefined: the key
 * schema, then every index of the shared definition (keys, all attributes projected). Extra
 * indexes are allowed.
 */
function schemaMismatch(description: TableDescription): string | undefined {
  const types = new Map(
    (description.AttributeDefinitions ?? []).map((a) => [a.AttributeName ?? '', a.AttributeType ?? '']),
  );
  const own = keyMismatch(description.KeySchema, types, TABLE_SCHEMA.partitionKey, TABLE_SCHEMA.sortKey, 'its keys');
  if (own !== undefined) return own;
  for (const index of TABLE_SCHEMA.globalIndexes) {
    const found = description.GlobalSecondaryIndexes?.find((g) => g.IndexName === index.indexName);
    if (!found) return `it has no global secondary index ${index.indexName}`;
    const keys = keyMismatch(found.KeySchema, types, index.partitionKey, index.sortKey, `index ${index.indexName}`);
    if (keys !== undefined) return keys;
    if (found.Projection?.ProjectionType !== 'ALL') return `index ${index.indexName} must project all attributes`;
  }
  return undefined;
}

/**
 * Why `table` cannot hold an app's data, as a sentence naming it, or undefined when it can. Access
 * denied is a problem of the deployment (the name is outside what the functions may use); other
 * failures (throttling, the network) are thrown.
 */
export async function tableProblem(table: Table): Promise<string | undefined> {
  let description: TableDescription | undefined;
  try {
    description = await describe(table);
  } catch (error) {
    if (errorName(error) === 'AccessDeniedException') return `the core may not use table '${table.name}'`;
    throw error;
  }
  if (!description) return `table '${table.name}' does not exist`;
  const status = description.TableStatus;
  if (status !== 'ACTIVE' && status !== 'UPDATING') return `table '${table.name}' is not active (${status})`;
  const mismatch = schemaMismatch(description);
  return mismatch === undefined ? undefined : `table '${table.name}' does not have this core's key schema: ${mismatch}`;
}

/**
 * Creates the table from the shared definition unless it exists, and waits until it is active.
 * Safe to race: a concurrent creation of the same table counts as created.
 */
export async function createTableIfMissing(table: Table, timeoutMs = 60_000): Promise<void> {
  if (await describe(table)) return;
  try {
    await table.client().send(new CreateTableCommand(createTableInput(table.name)));
  } catch (error) {
    if (errorName(error) !== 'ResourceInUseException') throw error;
  }
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    const status = (await describe(table))?.TableStatus;
    if (status === 'ACTIVE') return;
    if (Date.now() > deadline) throw new Error(`table ${table.name} did not become active (${status ?? 'missing'})`);
    await sleep(Math.min(1000, 50 * attempt));
  }
}
