/**
 * How fast a migration may write, and how many import-worker invocations that takes.
 *
 * DynamoDB serves a new on-demand table (and each new GSI) up to 4,000 write and 12,000 read
 * units per second; more after traffic has grown (on demand doubles the previous peak within
 * 30 minutes) or after the table is pre-warmed (warm throughput), up to the per-table quota, 40,000
 * by default. Sources: Amazon DynamoDB Developer Guide, "DynamoDB on-demand capacity mode",
 * "Understanding DynamoDB warm throughput", "Pre-warming a table for on-demand capacity mode",
 * "Service, account, and table quotas" (docs.aws.amazon.com/amazondynamodb/latest/developerguide/).
 *
 * The import follows the table by itself: each invocation paces its writes, raising them while
 * the table takes them and cutting them at its first throttle (functions/shared/import-pace.ts).
 * So the import worker's maximum concurrency is no longer what keeps a new table from being
 * overrun; it is the ceiling: as many invocations as the table may take at the fastest measured
 * batch (the figure it was always sized from: DynamoDB's own latency may make batches faster
 * still) — by default what a new on-demand table grows to in the first hour of an import at its
 * capacity (two doublings: 4,000 → 16,000 write units per second; functions/workers.ts), with warm
 * throughput what that allows. Below the ceiling, invocations the table has no room for wait for
 * the pace, and are billed for it
 * (docs/performance.md prices it): a higher ceiling than the table can use costs, it does not
 * speed anything up. The figures are measurement 5 of `npm run bench` (docs/performance.md "A
 * million users on AWS (measurement 5)"); re-measure there to change them.
 */

/** Write units per second a new on-demand table (and each new GSI) serves without throttling. */
export const NEW_TABLE_WRITE_UNITS = 4_000;
/** Read units per second a new on-demand table (and each new GSI) serves without throttling. */
export const NEW_TABLE_READ_UNITS = 12_000;
/** Write units per imported user that land on the base table (measurement 5: staging 2.06 + import 8.34). */
export const TABLE_WRITE_UNITS_PER_USER = 10.4;
/**
 * Fastest import-worker batch of 32 users (handler time), milliseconds: the fastest batch of 10
 * measured on a quiet machine (72 ms, measurement 5, 2026-11-22) scaled by the time per user of
 * batches of 32 against batches of 10 in the same runs (0.73, median of 3 interleaved runs,
 * 2026-11-28): 72 / 10 × 0.73 × 32 ≈ 170.
 */
export const FASTEST_BATCH_MS = 170;
/** Lambda's SQS event source allows a maximum concurrency of 2 to 1,000. */
export const MIN_EVENT_SOURCE_CONCURRENCY = 2;
export const MAX_EVENT_SOURCE_CONCURRENCY = 1_000;

/**
 * The import worker's maximum concurrency for a table that may serve `writeUnitsPerSecond`: as
 * many invocations as fit in it at the fastest measured batch time, never fewer than the event
 * source allows.
 */
export function importConcurrencyFor(writeUnitsPerSecond: number, batchSize: number): number {
  const perInvocation = ((batchSize * 1000) / FASTEST_BATCH_MS) * TABLE_WRITE_UNITS_PER_USER;
  const fits = Math.floor(writeUnitsPerSecond / perInvocation);
  return Math.min(MAX_EVENT_SOURCE_CONCURRENCY, Math.max(MIN_EVENT_SOURCE_CONCURRENCY, fits));
}
