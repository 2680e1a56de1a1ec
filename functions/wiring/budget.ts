/**
 * The time budget of a handler's storage calls: retries stop in time for an HTTP route to answer
 * (503 when the table stayed busy) and for a worker to hand its messages back; a worker may also
 * ask for fewer attempts per call (functions/storage/kit/retry.ts).
 */
import { withRetryPolicy } from '#functions/storage/kit/retry.js';

/**
 * Epoch ms at which an invocation's storage retries stop: what its Lambda context says is left
 * (`remainingMs`; the whole `timeoutMs` where no context counts down) less `reserveMs`, the time it
 * keeps to answer. The one formula of every deadline: HTTP routes ({@link requestDeadline}) and
 * workers (functions/workers/shell.ts).
 */
export const invocationDeadline = (
  remainingMs: number | undefined,
  timeoutMs: number,
  reserveMs: number,
  now = Date.now(),
): number => now + (remainingMs ?? timeoutMs) - reserveMs;

export const withinBudget = <T>(policy: { deadline: number; attempts?: number }, work: () => Promise<T>) =>
  withRetryPolicy({ ...policy, callDeadline: policy.deadline }, work);

/** Time an HTTP route keeps, of its function's timeout, to answer after its last storage retry. */
const ANSWER_RESERVE_MS = 2_000;

/**
 * The deadline of an HTTP request's storage calls (epoch ms): the function's remaining time less
 * {@link ANSWER_RESERVE_MS}, so a busy or silent table is answered with a 503 before the function's
 * timeout cuts the request off. `remainingMs` undefined (no Lambda context): 10 s, the routes' default.
 */
export const requestDeadline = (remainingMs: number | undefined, now = Date.now()): number =>
  invocationDeadline(remainingMs, 10_000, ANSWER_RESERVE_MS, now);
