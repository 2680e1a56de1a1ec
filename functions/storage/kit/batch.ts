/**
 * Batch reads and deletes that finish the job: unprocessed keys (DynamoDB's answer to throttling
 * inside a batch) are retried with backoff, and when they keep coming back the call fails with
 * {@link TransientStorageError} — a batch never gives up quietly with items missing. A call that
 * fails as a whole (throttling, a 5xx) is retried under the same policy (retry.ts); both kinds of
 * retry stop at the policy's deadline.
 */
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { chunk } from './chunk.js';
import { TransientStorageError } from './errors.js';
import { currentRetryPolicy, mayRetry, retrying } from './retry.js';
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
  const attempts = currentRetryPolicy().attempts ?? ATTEMPTS;
  for (const part of chunk(unique, GET_LIMIT)) {
    let pending: Item[] = part;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 1) await pauseBeforeUnprocessed(attempt - 1, attempts, 20);
      const name = table.name;
      const keys = pending;
      const out = await retrying(
        () =>
          table.client().send(
            new BatchGetCommand({
              RequestItems: { [name]: { Keys: keys, ConsistentRead: options.consistent ?? true, ...projection } },
            }),
          ),
        { attempts },
      );
      found.push(...((out.Responses?.[name] as Item[] | undefined) ?? []));
      pending = (out.UnprocessedKeys?.[name]?.Keys as Item[] | undefined) ?? [];
    }
  }
  return found;
}

/** Deletes these keys (unconditionally, in batches of 25; not atomic across batches). */
export async function batchDeleteAll(table: Table, keys: readonly Key[]): Promise<void> {
  const attempts = currentRetryPolicy().attempts ?? ATTEMPTS;
  for (const part of chunk(keys, WRITE_LIMIT)) {
    let requests: Item[] = part.map((key) => ({ DeleteRequest: { Key: { PK: key.PK, SK: key.SK } } }));
    for (let attempt = 1; requests.length > 0; attempt++) {
      if (attempt > 1) await pauseBeforeUnprocessed(attempt - 1, attempts, 25);
      const name = table.name;
      const batch = requests;
      // Unconditional deletes: repeating one that was applied changes nothing.
      const out = await retrying(
        () => table.client().send(new BatchWriteCommand({ RequestItems: { [name]: batch as never } })),
        { attempts },
      );
      requests = (out.UnprocessedItems?.[name] as Item[] | undefined) ?? [];
    }
  }
}

/** Waits before another round of unprocessed keys, or fails when the attempts or the deadline are spent. */
async function pauseBeforeUnprocessed(rounds: number, attempts: number, baseMs: number): Promise<void> {
  const delay = backoffMs(rounds + 1, baseMs, 1000);
  if (!mayRetry(rounds, attempts, delay)) throw new TransientStorageError('throttled');
  await sleep(delay);
}
