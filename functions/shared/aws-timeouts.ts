/**
 * Timeouts of every AWS call the functions make (DynamoDB, SQS, KMS; docs/safe-defaults.md, "No hung
 * request"): a connection timeout, and a timeout per attempt sized from the invocation's time
 * budget (call-budget.ts). No AWS call waits forever for a server that stopped answering.
 */
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { currentRetryPolicy, type RetryPolicy } from './call-budget.js';
import { BudgetExhaustedError } from './errors.js';

/** Longest wait for a TCP (and TLS) connection to an AWS endpoint or a local server. */
const AWS_CONNECT_TIMEOUT_MS = 2_000;
/** An attempt made outside any invocation budget (start-up, scripts, tests) waits at most this long. */
export const AWS_UNBUDGETED_ATTEMPT_MS = 30_000;
/**
 * The shortest time an attempt gets, also past the invocation's deadline — in the time it keeps to
 * answer (HTTP) or to hand messages back (workers), where it still makes its first attempts.
 */
export const AWS_RESERVE_ATTEMPT_MS = 1_000;

/** The SDK's attempt header (`amz-sdk-request: attempt=2; max=3`) on its own retries. */
const SDK_ATTEMPT = /attempt=(\d+)/;

/**
 * How long one attempt of an AWS call may take, given the invocation's budget (call-budget.ts):
 * what is left before the invocation's deadline (`callDeadline`), at least
 * {@link AWS_RESERVE_ATTEMPT_MS}. An attempt is never cut before that deadline, even when a store
 * stops its own retries earlier: a slow answer (a large transaction on a busy table) is a success,
 * where cutting it would make a failure whose write may be applied anyway. Once the deadline has
 * passed, the SDK's own retries (attempt 2 and later) are refused (0) — the caller's policy
 * decides about further attempts. Without a budget: `unbudgetedMs`. Whatever the budget, no attempt
 * outlives the invocation's working time (`stopAt`): at or past it, 0 (no attempt).
 */
export function attemptTimeoutMs(
  now: number,
  policy: RetryPolicy,
  sdkAttempt: number,
  unbudgetedMs = AWS_UNBUDGETED_ATTEMPT_MS,
): number {
  const ms = budgetedMs(now, policy, sdkAttempt, unbudgetedMs);
  return policy.stopAt === undefined ? ms : Math.max(0, Math.min(ms, policy.stopAt - now));
}

function budgetedMs(now: number, policy: RetryPolicy, sdkAttempt: number, unbudgetedMs: number): number {
  if (policy.callDeadline === undefined) return unbudgetedMs;
  const left = policy.callDeadline - now;
  if (left <= 0 && sdkAttempt > 1) return 0;
  return Math.max(left, AWS_RESERVE_ATTEMPT_MS);
}

/**
 * The SDK's Node.js HTTP handler with a connection timeout and a request timeout per attempt sized
 * by {@link attemptTimeoutMs}. A timed-out attempt fails with the SDK's `TimeoutError`, which the
 * SDK retries and the DynamoDB kit classifies as `unavailable` (functions/storage/kit/errors.ts):
 * retried within the budget, then backpressure — a 503 with `Retry-After` from the HTTP routes, a
 * message returned for later by the workers; never a reason to fail a user.
 */
export class BudgetedHttpHandler extends NodeHttpHandler {
  /** @param unbudgetedMs an attempt's limit outside any budget (tests shorten it) */
  constructor(private readonly unbudgetedMs = AWS_UNBUDGETED_ATTEMPT_MS) {
    super({
      connectionTimeout: AWS_CONNECT_TIMEOUT_MS,
      requestTimeout: unbudgetedMs,
      // Without it a request past requestTimeout only logs a warning and keeps waiting.
      throwOnRequestTimeout: true,
    });
  }

  override handle(...[request, options]: Parameters<NodeHttpHandler['handle']>): ReturnType<NodeHttpHandler['handle']> {
    const header = request.headers['amz-sdk-request'] ?? '';
    const sdkAttempt = Number(SDK_ATTEMPT.exec(header)?.[1] ?? 1);
    const now = Date.now();
    const policy = currentRetryPolicy();
    if (policy.stopAt !== undefined && now >= policy.stopAt) {
      // Past the invocation's working time nothing reaches AWS (a timed-out function locally).
      return Promise.reject(new BudgetExhaustedError('no AWS call after the end of the invocation'));
    }
    const timeoutMs = attemptTimeoutMs(now, policy, sdkAttempt, this.unbudgetedMs);
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
