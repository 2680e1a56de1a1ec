/**
 * Timeouts of every AWS call the functions make (DynamoDB, SQS, KMS; docs/safe-defaults.md, "No hung request"): a
 * connection timeout, and a timeout per attempt sized from the invocation's time budget
 * (call-budget.ts). No AWS call waits forever for a server that stopped answering.
 */
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { currentRetryPolicy, type RetryPolicy } from './call-budget.js';

/** Longest wait for a TCP (and TLS) connection to an AWS endpoint or a local server. */
export const AWS_CONNECT_TIMEOUT_MS = 2_000;
/**
 * Longest one attempt of an AWS call may wait for its answer, whatever the budget. DynamoDB, SQS and
 * KMS answer in milliseconds; an attempt this slow is on a dead connection or a server that stopped
 * answering, and a new attempt (the kit's or the caller's) has a better chance.
 */
export const AWS_ATTEMPT_TIMEOUT_MS = 5_000;
/**
 * Past the invocation's deadline — the time it keeps to answer (HTTP) or to hand messages back
 * (workers) — a first attempt may take at most this long; the SDK's own retries are refused then.
 */
export const AWS_RESERVE_ATTEMPT_MS = 1_000;

/** The SDK's attempt header (`amz-sdk-request: attempt=2; max=3`) on its own retries. */
const SDK_ATTEMPT = /attempt=(\d+)/;

/**
 * How long one attempt of an AWS call may take, given the invocation's budget (call-budget.ts):
 * what is left before the deadline, at least {@link AWS_RESERVE_ATTEMPT_MS} and at most
 * {@link AWS_ATTEMPT_TIMEOUT_MS}; once the deadline has passed, the SDK's own retries (attempt 2
 * and later) get nothing (0: refused) — the caller's policy decides about further attempts.
 * Without a budget (start-up, tests): {@link AWS_ATTEMPT_TIMEOUT_MS}.
 */
export function attemptTimeoutMs(now: number, policy: RetryPolicy, sdkAttempt: number): number {
  if (policy.deadline === undefined) return AWS_ATTEMPT_TIMEOUT_MS;
  const left = policy.deadline - now;
  if (left <= 0 && sdkAttempt > 1) return 0;
  return Math.min(AWS_ATTEMPT_TIMEOUT_MS, Math.max(left, AWS_RESERVE_ATTEMPT_MS));
}

/**
 * The SDK's Node.js HTTP handler with a connection timeout and a request timeout per attempt sized
 * by {@link attemptTimeoutMs}. A timed-out attempt fails with the SDK's `TimeoutError`, which the
 * SDK retries and the DynamoDB kit classifies as `unavailable` (functions/storage/kit/errors.ts):
 * retried within the budget, then backpressure — a 503 with `Retry-After` from the HTTP routes, a
 * message returned for later by the workers; never a reason to fail a user.
 */
export class BudgetedHttpHandler extends NodeHttpHandler {
  constructor() {
    super({
      connectionTimeout: AWS_CONNECT_TIMEOUT_MS,
      requestTimeout: AWS_ATTEMPT_TIMEOUT_MS,
      // Without it a request past requestTimeout only logs a warning and keeps waiting.
      throwOnRequestTimeout: true,
    });
  }

  override handle(...[request, options]: Parameters<NodeHttpHandler['handle']>): ReturnType<NodeHttpHandler['handle']> {
    const header = request.headers['amz-sdk-request'] ?? '';
    const sdkAttempt = Number(SDK_ATTEMPT.exec(header)?.[1] ?? 1);
    const timeoutMs = attemptTimeoutMs(Date.now(), currentRetryPolicy(), sdkAttempt);
    if (timeoutMs <= 0) {
      return Promise.reject(
        Object.assign(new Error("the invocation's time budget is spent: no further attempt"), { name: 'TimeoutError' }),
      );
    }
    return super.handle(request, { ...options, requestTimeout: timeoutMs });
  }
}

/** Settings every AWS client of the functions is built with (DynamoDB, SQS, KMS). */
export function awsClientTimeouts(): { requestHandler: BudgetedHttpHandler } {
  return { requestHandler: new BudgetedHttpHandler() };
}
