/**
 * The time budget of a handler's storage calls: retries stop in time for an HTTP route to answer
 * (503 when the table stayed busy) and for a worker to hand its messages back; a worker may also
 * ask for fewer attempts per call (functions/storage/kit/retry.ts).
 */
import { withRetryPolicy } from '#functions/storage/kit/retry.js';

export const withinBudget = <T>(policy: { deadline: number; attempts?: number }, work: () => Promise<T>) =>
  withRetryPolicy(policy, work);
