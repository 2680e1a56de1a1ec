/**
 * The one shell every worker (functions/workers.ts: the import worker, the DLQ consumer, the
 * reconciler) runs in, so none of them computes these itself:
 *
 * - its deadline: what the Lambda context says is left of the invocation (its manifest timeout
 *   where no context counts down), less the reserve its manifest entry keeps;
 * - its budget: every storage call made inside retries no later than that deadline, with the
 *   manifest's attempts per call (functions/wiring/budget.ts) — a worker without a `budget` entry
 *   runs without one;
 * - its bookkeeping: the counts its work adds up, published as metrics (one EMF document) once the
 *   work is done.
 */
import type { Context } from 'aws-lambda';
import { withRetryPolicy } from '#functions/shared/call-budget.js';
import { METRIC, type MetricName } from '#functions/shared/metric-names.js';
import { type MetricCounts, recordMetrics } from '#functions/shared/metrics.js';
import { invocationDeadline, withinBudget } from '#functions/wiring/budget.js';
import { type WorkerId, workerNamed } from '#functions/workers.js';

/** What a worker reads of its Lambda context (the local runtime and the tests give the same). */
export type InvocationContext = Pick<Context, 'getRemainingTimeInMillis'>;

/** Counts of one invocation, by metric; published together when the invocation's work is done. */
export class Tally {
  private readonly counts = new Map<MetricName, number>();

  add(metric: MetricName, count = 1): void {
    this.counts.set(metric, (this.counts.get(metric) ?? 0) + count);
  }

  /** The counts in the metrics' declared order (zero ones are not published). */
  toMetrics(): MetricCounts {
    return Object.fromEntries(
      Object.values(METRIC).flatMap((m) => (this.counts.has(m) ? [[m, this.counts.get(m)]] : [])),
    );
  }
}

/**
 * Epoch ms at which the worker's storage retries stop (undefined for a worker without a budget):
 * see the module comment.
 */
export function workerDeadline(id: WorkerId, context?: InvocationContext, now = Date.now()): number | undefined {
  const { budget, timeoutSeconds } = workerNamed(id);
  return (
    budget &&
    invocationDeadline(context?.getRemainingTimeInMillis?.(), timeoutSeconds * 1000, budget.reserveSeconds * 1000, now)
  );
}

/** The handler of worker `id`: `work` run in the shell (see the module comment). */
export function workerHandler<E, R>(
  id: WorkerId,
  work: (event: E, tally: Tally) => Promise<R>,
): (event: E, context?: InvocationContext) => Promise<R> {
  const { budget, timeoutSeconds } = workerNamed(id);
  return async (event, context) => {
    const tally = new Tally();
    const deadline = workerDeadline(id, context);
    // Nothing of the invocation reaches AWS after its timeout (locally, where a timed-out function
    // in the runtime's own thread is not stopped, as on Lambda).
    const stopAt = invocationDeadline(context?.getRemainingTimeInMillis?.(), timeoutSeconds * 1000, 0);
    const run = () => work(event, tally);
    const result =
      budget && deadline !== undefined
        ? await withinBudget(
            {
              deadline,
              stopAt,
              ...(budget.storageAttempts !== undefined ? { attempts: budget.storageAttempts } : {}),
            },
            run,
          )
        : await withRetryPolicy({ stopAt }, run);
    recordMetrics(tally.toMetrics());
    return result;
  };
}
