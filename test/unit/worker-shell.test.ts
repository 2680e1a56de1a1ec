/**
 * The shell every worker runs in (functions/workers/shell.ts): its storage deadline comes from its
 * manifest entry and the Lambda context, its budget is in force for everything its work calls, and
 * its counts come out as one set of metrics.
 */
import { describe, expect, it } from 'vitest';
import { METRIC } from '#functions/shared/metric-names.js';
import { currentRetryPolicy } from '#functions/storage/kit/retry.js';
import { Tally, workerDeadline, workerHandler } from '#functions/workers/shell.js';
import { WORKERS, type WorkerId, workerNamed } from '#functions/workers.js';

const NOW = 1_800_000_000_000;

describe('the worker shell', () => {
  it('takes each worker its deadline from its manifest entry: the time left less its reserve', () => {
    for (const id of ['import-worker', 'dlq-consumer', 'reconciler'] as const) {
      const { timeoutSeconds, budget } = workerNamed(id);
      const reserve = (budget?.reserveSeconds ?? Number.NaN) * 1000;
      expect(reserve).toBeGreaterThan(0);
      // Without a Lambda context, the whole timeout counts.
      expect(workerDeadline(id, undefined, NOW)).toBe(NOW + timeoutSeconds * 1000 - reserve);
      expect(workerDeadline(id, { getRemainingTimeInMillis: () => 12_345 }, NOW)).toBe(NOW + 12_345 - reserve);
    }
  });

  it("runs the work under the worker's budget: its deadline and its attempts per storage call", async () => {
    const importWorker = workerHandler('import-worker', async () => currentRetryPolicy());
    const before = Date.now();
    const policy = await importWorker({}, { getRemainingTimeInMillis: () => 30_000 });
    const reserve = (workerNamed('import-worker').budget?.reserveSeconds ?? 0) * 1000;
    expect(policy.attempts).toBe(workerNamed('import-worker').budget?.storageAttempts);
    expect(policy.deadline).toBeGreaterThanOrEqual(before + 30_000 - reserve);
    expect(policy.deadline).toBeLessThanOrEqual(Date.now() + 30_000 - reserve);

    // The DLQ consumer and the reconciler keep the calls' own attempts, within their deadline.
    for (const id of ['dlq-consumer', 'reconciler'] as const) {
      const own = await workerHandler(id, async () => currentRetryPolicy())({});
      expect(own.attempts).toBeUndefined();
      expect(own.deadline).toBeGreaterThan(Date.now());
    }
  });

  it("adds up an invocation's counts into the metrics it publishes (recordMetrics leaves zero ones out)", () => {
    const tally = new Tally();
    tally.add(METRIC.importThrottled, 2);
    tally.add(METRIC.usersImported);
    tally.add(METRIC.usersImported, 3);
    tally.add(METRIC.usersFailed, 0);
    expect(tally.toMetrics()).toEqual({
      [METRIC.usersImported]: 4,
      [METRIC.usersFailed]: 0,
      [METRIC.importThrottled]: 2,
    });
    expect(new Tally().toMetrics()).toEqual({});
  });

  it('knows every worker of the manifest by its id', () => {
    for (const worker of WORKERS) expect(workerNamed(worker.id as WorkerId)).toBe(worker);
  });
});
