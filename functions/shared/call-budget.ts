/**
 * The time budget of everything a function invocation calls: an epoch-ms deadline (and, for a
 * worker, fewer attempts per storage call), set once per invocation and read wherever a call is
 * made — by the DynamoDB kit's retries (functions/storage/kit/retry.ts) and by every AWS SDK
 * client's per-attempt timeout (clients.ts). AsyncLocalStorage carries it, so stores and clients
 * keep their signatures.
 *
 * Set by functions/wiring/budget.ts (`withinBudget`): the HTTP pipeline (the function's remaining
 * time less the time kept to answer), the import worker and the DLQ consumer (less the time kept to
 * hand messages back), the reconciler.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RetryPolicy {
  /** Epoch ms: no retry starts whose backoff would end after it, and no AWS call outlives it. */
  readonly deadline?: number;
  /** Attempts per kit call, replacing each call's own default. */
  readonly attempts?: number;
}

const policies = new AsyncLocalStorage<RetryPolicy>();

/** Runs `work` under `policy` (an outer policy's earlier deadline still applies). */
export function withRetryPolicy<T>(policy: RetryPolicy, work: () => Promise<T>): Promise<T> {
  const outer = policies.getStore();
  const deadlines = [outer?.deadline, policy.deadline].filter((d): d is number => d !== undefined);
  const attempts = policy.attempts ?? outer?.attempts;
  return policies.run(
    {
      ...(deadlines.length > 0 ? { deadline: Math.min(...deadlines) } : {}),
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
