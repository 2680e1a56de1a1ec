/**
 * The time budget of a handler's storage calls: retries stop in time for an HTTP route to answer
 * (503 when the table stayed busy) and for a worker to hand its messages back; a worker may also
 * ask for fewer attempts per call (functions/storage/kit/retry.ts). Past the end of an invocation's
 * working time (`stopAt`) none of its calls reaches AWS (functions/shared/call-budget.ts).
 */
import { withRetryPolicy } from '#functions/storage/kit/retry.js';

/**
 * Epoch ms at which an invocation's storage retries stop: what its Lambda context says is left
 * (`remainingMs`; the whole `timeoutMs` where no context counts down) less `reserveMs`, the time it
 * keeps to answer. The one formula of every deadline: HTTP routes ({@link requestBudget}) and
 * workers (functions/workers/shell.ts).
 */
export const invocationDeadline = (
  remainingMs: number | undefined,
  timeoutMs: number,
  reserveMs: number,
  now = Date.now(),
): number => now + (remainingMs ?? timeoutMs) - reserveMs;

export const withinBudget = <T>(
  policy: { deadline: number; stopAt?: number; attempts?: number },
  work: () => Promise<T>,
) => withRetryPolicy({ ...policy, callDeadline: policy.deadline }, work);

/** Time an HTTP route keeps, of its function's timeout, to answer after its last storage retry. */
const ANSWER_RESERVE_MS = 2_000;

/**
 * Time an HTTP route keeps, of its function's timeout, to answer once its working time is over:
 * past `stopAt` no call of the request reaches AWS any more, and the pipeline answers 503 if the
 * route has not answered yet (functions/http/pipeline.ts).
 */
const STOP_RESERVE_MS = 1_500;

/** An HTTP request's time budget (epoch ms). */
export interface RequestBudget {
  /**
   * Storage retries stop, and work that grows with its input stops between two of its steps
   * (`checkTimeLeft`): the function's remaining time less {@link ANSWER_RESERVE_MS}, so a busy or
   * silent table, or a request too large for the time, is answered with a 503 before the function's
   * timeout cuts the request off.
   */
  readonly deadline: number;
  /** The end of the request's working time (`RetryPolicy.stopAt`): the timeout less {@link STOP_RESERVE_MS}. */
  readonly stopAt: number;
}

/**
 * The budget of an HTTP request from what its Lambda context says is left (`remainingMs`;
 * undefined without a context: 10 s, the routes' default).
 */
export const requestBudget = (remainingMs: number | undefined, now = Date.now()): RequestBudget => ({
  deadline: invocationDeadline(remainingMs, 10_000, ANSWER_RESERVE_MS, now),
  stopAt: invocationDeadline(remainingMs, 10_000, STOP_RESERVE_MS, now),
});
