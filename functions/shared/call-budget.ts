/**
 * The time budget of everything a function invocation calls: an epoch-ms deadline (and, for a
 * worker, fewer attempts per storage call), set once per invocation and read wherever a call is
 * made — by the DynamoDB kit's retries (functions/storage/kit/retry.ts) and by every AWS SDK
 * client's per-attempt timeout (clients.ts). AsyncLocalStorage carries it, so stores and clients
 * keep their signatures.
 *
 * Set by functions/wiring/budget.ts (`withinBudget`): the HTTP pipeline (the function's remaining
 * time less the time kept to answer), the import worker and the DLQ consumer (less the time kept to
 * hand messages back), the reconciler. Its `stopAt` ends the invocation's working time: nothing of
 * it reaches AWS after (aws-timeouts.ts, the DynamoDB kit).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { BudgetExhaustedError } from './errors.js';

export interface RetryPolicy {
  /** Epoch ms: no retry starts whose backoff would end after it. */
  readonly deadline?: number;
  /**
   * Epoch ms: the invocation's own deadline, set once per invocation (functions/wiring/budget.ts):
   * no AWS call attempt outlives it by more than a reserve (functions/shared/aws-timeouts.ts). A
   * store narrowing `deadline` for its own retries leaves it as it is: a slow but answering call is
   * not cut before the invocation needs its time back.
   */
  readonly callDeadline?: number;
  /**
   * Epoch ms: the end of the invocation's working time — for an HTTP request its function's
   * timeout less the moment it keeps to answer, for a worker its timeout. No AWS call attempt
   * starts at or after it and none outlives it (aws-timeouts.ts), and the kit starts no call
   * (functions/storage/kit/retry.ts): whatever the invocation still does past it — the local
   * runtime cannot stop a timed-out function in its own thread — changes nothing a retry sees.
   */
  readonly stopAt?: number;
  /** Attempts per kit call, replacing each call's own default. */
  readonly attempts?: number;
}

const policies = new AsyncLocalStorage<RetryPolicy>();

/** Runs `work` under `policy` (an outer policy's earlier deadline still applies). */
export function withRetryPolicy<T>(policy: RetryPolicy, work: () => Promise<T>): Promise<T> {
  const outer = policies.getStore();
  const earliest = (a: number | undefined, b: number | undefined) =>
    a === undefined ? b : b === undefined ? a : Math.min(a, b);
  const deadline = earliest(outer?.deadline, policy.deadline);
  const callDeadline = earliest(outer?.callDeadline, policy.callDeadline);
  const stopAt = earliest(outer?.stopAt, policy.stopAt);
  const attempts = policy.attempts ?? outer?.attempts;
  return policies.run(
    {
      ...(deadline !== undefined ? { deadline } : {}),
      ...(callDeadline !== undefined ? { callDeadline } : {}),
      ...(stopAt !== undefined ? { stopAt } : {}),
      ...(attempts !== undefined ? { attempts } : {}),
    },
    work,
  );
}

/** The policy in force here (empty outside {@link withRetryPolicy}). */
export const currentRetryPolicy = (): RetryPolicy => policies.getStore() ?? {};

/** Milliseconds left before the policy's deadline (Infinity without one). */
export function timeLeftMs(now = Date.now()): number {
  const { deadline } = currentRetryPolicy();
  return deadline === undefined ? Number.POSITIVE_INFINITY : deadline - now;
}

/** Whether the invocation's working time is over ({@link RetryPolicy.stopAt}); never outside a budget. */
export function pastStop(now = Date.now()): boolean {
  const { stopAt } = currentRetryPolicy();
  return stopAt !== undefined && now >= stopAt;
}

/**
 * For work that grows with its input (a loop over users, pages, batches of keys): throws
 * {@link BudgetExhaustedError} once the policy's deadline has passed, so the work stops between two
 * of its steps and its request answers 503 with `Retry-After` in time. `step` names what was left
 * undone (it is logged, never answered).
 */
export function checkTimeLeft(step: string, now = Date.now()): void {
  const { deadline } = currentRetryPolicy();
  if (deadline !== undefined && now >= deadline) throw new BudgetExhaustedError(`out of time before ${step}`);
}

/**
 * Runs a cleanup call — the one kind a request may make after its working time: a keyed staging
 * request giving its lease back, so the client's retry need not wait for it to run out — with one
 * attempt of at most {@link CLEANUP_ATTEMPT_MS} and no retry, whatever is left of the budget.
 * Such a call must be harmless whenever it lands (conditional on the state its caller left).
 */
export function cleanupCall<T>(work: () => Promise<T>, now = Date.now()): Promise<T> {
  const { attempts } = currentRetryPolicy();
  return policies.run(
    {
      deadline: now,
      callDeadline: now + CLEANUP_ATTEMPT_MS,
      stopAt: now + CLEANUP_ATTEMPT_MS,
      ...(attempts !== undefined ? { attempts } : {}),
    },
    work,
  );
}

/** The one attempt a {@link cleanupCall} gets. */
const CLEANUP_ATTEMPT_MS = 1_000;
