/**
 * How fast a migration may write, and how many import-worker invocations that allows.
 *
 * DynamoDB serves a new on-demand table (and each new GSI) up to 4,000 write and 12,000 read
 * units per second; more only after traffic has grown (on demand doubles the previous peak within
 * 30 minutes) or after the table is pre-warmed (warm throughput). Sources: Amazon DynamoDB
 * Developer Guide, "Understanding DynamoDB warm throughput" and "Pre-warming a table for
 * on-demand capacity mode" (docs.aws.amazon.com/amazondynamodb/latest/developerguide/).
 *
 * The import is bound by the base table: most of the write units an imported user costs (staging
 * at 10,000 users per request plus the import) go to it, the rest to GSI1 and GSI2, each from its
 * own capacity. A worker invocation imports a batch of 10 users; sizing uses the fastest batch
 * measured, not the published median (DynamoDB's own latency may be lower still, so the faster
 * figure is the safer one to size from). The figures below are measurement 5 of `npm run bench`
 * (docs/performance.md "A million users on AWS (measurement 5)"); re-measure there to change them.
 */

/** Write units per second a new on-demand table (and each new GSI) serves without throttling. */
export const NEW_TABLE_WRITE_UNITS = 4_000;
/** Read units per second a new on-demand table (and each new GSI) serves without throttling. */
export const NEW_TABLE_READ_UNITS = 12_000;
/** Write units per imported user that land on the base table (measurement 5). */
export const TABLE_WRITE_UNITS_PER_USER = 12.83;
/** Fastest measured import-worker batch (10 users, handler time), milliseconds (measurement 5). */
export const FASTEST_BATCH_MS = 72;
/** Lambda's SQS event source allows a maximum concurrency of 2 to 1,000. */
export const MIN_EVENT_SOURCE_CONCURRENCY = 2;
export const MAX_EVENT_SOURCE_CONCURRENCY = 1_000;

/** Users per second one import-worker invocation imports at the fastest measured batch time. */
function usersPerSecondPerInvocation(batchSize: number): number {
  return (batchSize * 1000) / FASTEST_BATCH_MS;
}

/**
 * The import worker's maximum concurrency for a table that serves `writeUnitsPerSecond`: as many
 * invocations as fit in the base table's write budget at the fastest measured batch time, never
 * fewer than the event source allows.
 */
export function importConcurrencyFor(writeUnitsPerSecond: number, batchSize: number): number {
  const perInvocation = usersPerSecondPerInvocation(batchSize) * TABLE_WRITE_UNITS_PER_USER;
  const fits = Math.floor(writeUnitsPerSecond / perInvocation);
  return Math.min(MAX_EVENT_SOURCE_CONCURRENCY, Math.max(MIN_EVENT_SOURCE_CONCURRENCY, fits));
}
