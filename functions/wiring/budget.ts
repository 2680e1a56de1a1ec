/**
 * The time budget of a handler's storage calls: retries stop in time for an HTTP route to answer
 * (503 when the table stayed busy) and for a worker to hand its messages back; a worker may also
 * ask for fewer attempts per call (functions/storage/kit/retry.ts).
 */
import { withRetryPolicy } from '#functions/storage/kit/retry.js';

/**
 * Epoch ms at which an invocation's storage retries stop: what its Lambda context says is left (the
 * whole `timeoutMs` where no context counts down) less `reserveMs`, the time it keeps to answer.
 */
export const invocationDeadline = (
  context: { readonly getRemainingTimeInMillis?: () => number } | undefined,
  timeoutMs: number,
  reserveMs: number,
  now = Date.now(),
): number => now + (context?.getRemainingTimeInMillis?.() ?? timeoutMs) - reserveMs;

export const withinBudget = <T>(policy: { deadline: number; attempts?: number }, work: () => Promise<T>) =>
  withRetryPolicy(policy, work);
