/**
 * The one retry policy of the kit: a call that fails for a transient reason (throttling, a
 * conflicting transaction, a 5xx — see errors.ts) is tried again with jittered exponential backoff
 * while its attempts and the caller's time budget allow, and then fails with
 * {@link TransientStorageError} (a `BackpressureError`). Everything else is thrown as it is.
 *
 * The budget belongs to the caller, not to each call: an HTTP request must answer before API
 * Gateway gives up, and a worker invocation must hand its messages back before Lambda's timeout.
 * {@link withRetryPolicy} sets it for everything run inside it (AsyncLocalStorage), so stores keep
 * their signatures and a worker can also ask for fewer attempts — waiting in the queue costs
 * nothing, waiting inside an invocation costs its duration.
 */
import { currentRetryPolicy, pastStop } from '#functions/shared/call-budget.js';
import { BudgetExhaustedError } from '#functions/shared/errors.js';
import { classifyError, isTransient, type TransientKind, TransientStorageError } from './errors.js';
import { backoffMs, sleep } from './table.js';

// The policy itself lives in functions/shared/call-budget.ts, where the AWS clients' per-attempt
// timeouts read the same deadline (functions/shared/clients.ts).
export { currentRetryPolicy, timeLeftMs, withRetryPolicy } from '#functions/shared/call-budget.js';

export interface RetryOptions {
  /** Attempts unless the policy says otherwise. */
  readonly attempts: number;
  /**
   * Transient kinds worth another attempt. A conditional write that failed `unavailable` (a 5xx or
   * a timeout) may have been applied, so retrying it could misreport its condition: such a call
   * fails at once with {@link TransientStorageError} instead. @default every transient kind
   */
  readonly retry?: readonly TransientKind[];
  readonly baseMs?: number;
  readonly capMs?: number;
}

/** True when another attempt may start: attempts left and its backoff ends before the deadline. */
export function mayRetry(attempt: number, attempts: number, delayMs: number): boolean {
  const { deadline } = currentRetryPolicy();
  return attempt < attempts && (deadline === undefined || Date.now() + delayMs < deadline);
}

/**
 * Runs `call` under the retry policy (see the module comment). Past the invocation's working time
 * (`stopAt`) no attempt starts: {@link BudgetExhaustedError}, never retried.
 */
export async function retrying<T>(call: () => Promise<T>, options: RetryOptions): Promise<T> {
  const attempts = currentRetryPolicy().attempts ?? options.attempts;
  for (let attempt = 1; ; attempt++) {
    if (pastStop()) throw new BudgetExhaustedError('no storage call after the end of the invocation');
    try {
      return await call();
    } catch (error) {
      if (error instanceof BudgetExhaustedError) throw error;
      const kind = classifyError(error);
      if (!isTransient(kind)) throw error;
      const delay = backoffMs(attempt, options.baseMs, options.capMs);
      const retryable = options.retry?.includes(kind) ?? true;
      if (!retryable || !mayRetry(attempt, attempts, delay)) {
        throw error instanceof TransientStorageError ? error : new TransientStorageError(kind, { cause: error });
      }
      await sleep(delay);
    }
  }
}
