/**
 * The DynamoDB kit: everything the stores share about talking to DynamoDB. A store says what to
 * read or write; the kit does the batching, paging, retrying and classifying.
 *
 * - table.ts     the table a store is built for (`Table`), keys, backoff
 * - catalog.ts   tables themselves: is one of this core's tables (DescribeTable), create a missing one
 * - entity.ts    entities declare their key and index attributes once; update expressions from data
 * - transact.ts  atomic writes: client request token, one retry/backoff policy, conditions by index
 * - batch.ts     batch get / batch delete of any number of keys, unprocessed keys retried
 * - query.ts     key conditions from the schema, pages of a query
 * - errors.ts    conditional / throttled / conflict / unavailable / permanent; refused values (400)
 * - retry.ts     the one retry policy: backoff, attempts, the caller's deadline (withRetryPolicy)
 * - shard.ts     FNV-1a shard of an id (also used by the stack for route groups)
 * - chunk.ts     chunking, grouping, bounded parallelism
 */
export { batchDeleteAll, batchGetAll } from './batch.js';
export { createTableIfMissing, tableProblem } from './catalog.js';
export { chunk, forEachLimited, groupBy } from './chunk.js';
export { defineEntity, updateExpression } from './entity.js';
export { classifyError, isTransient } from './errors.js';
export { keyAttributes, type PartitionQuery, queryAll, queryPage, queryPages } from './query.js';
export { timeLeftMs, withRetryPolicy } from './retry.js';
export { allShards, shardOf } from './shard.js';
export { type Condition, deleteItem, getItem, putItem, updateItem } from './single.js';
export { baseTable, type Item, type Key, keyString, sleep, type Table, tableNamed, ttlSeconds } from './table.js';
export { type TransactItem, transact } from './transact.js';
