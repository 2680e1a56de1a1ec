/**
 * Batch reads and deletes that finish the job: unprocessed keys (DynamoDB's answer to throttling
 * inside a batch) are retried with backoff, and when they keep coming back the call fails with
 * {@link TransientStorageError} — a batch never gives up quietly with items missing.
 */
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { chunk } from './chunk.js';
import { TransientStorageError } from './errors.js';
import { backoffMs, type Item, type Key, keyString, sleep, type Table } from './table.js';

const GET_LIMIT = 100;
const WRITE_LIMIT = 25;
const ATTEMPTS = 10;

export interface BatchGetOptions {
  /** @default true */
  readonly consistent?: boolean;
  /** Attributes to read (names, not expressions); every attribute when omitted. */
  readonly attributes?: readonly string[];
}

/** The items of these keys (duplicates read once; missing items are absent from the answer). */
export async function batchGetAll(table: Table, keys: readonly Key[], options: BatchGetOptions = {}): Promise<Item[]> {
  const unique = [...new Map(keys.map((k) => [keyString(k), k])).values()];
  const projection = options.attributes
    ? {
        ProjectionExpression: options.attributes.map((_, i) => `#p${i}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(options.attributes.map((a, i) => [`#p${i}`, a])),
      }
    : {};
  const found: Item[] = [];
  for (const part of chunk(unique, GET_LIMIT)) {
    let pending: Item[] = part;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > ATTEMPTS) throw new TransientStorageError('throttled');
      if (attempt > 1) await sleep(backoffMs(attempt, 20, 1000));
      const name = table.name;
      const out = await table.client().send(
        new BatchGetCommand({
          RequestItems: { [name]: { Keys: pending, ConsistentRead: options.consistent ?? true, ...projection } },
        }),
      );
      found.push(...((out.Responses?.[name] as Item[] | undefined) ?? []));
      pending = (out.UnprocessedKeys?.[name]?.Keys as Item[] | undefined) ?? [];
    }
  }
  return found;
}

/** Deletes these keys (unconditionally, in batches of 25; not atomic across batches). */
export async function batchDeleteAll(table: Table, keys: readonly Key[]): Promise<void> {
  for (const part of chunk(keys, WRITE_LIMIT)) {
    let requests: Item[] = part.map((key) => ({ DeleteRequest: { Key: { PK: key.PK, SK: key.SK } } }));
    for (let attempt = 1; requests.length > 0; attempt++) {
      if (attempt > ATTEMPTS) throw new TransientStorageError('throttled');
      if (attempt > 1) await sleep(backoffMs(attempt, 25, 1000));
      const name = table.name;
      const out = await table.client().send(new BatchWriteCommand({ RequestItems: { [name]: requests as never } }));
      requests = (out.UnprocessedItems?.[name] as Item[] | undefined) ?? [];
    }
  }
}
