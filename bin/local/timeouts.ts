/**
 * Function timeouts in the local runtime, as Lambda applies them: every route function and worker
 * runs at most its manifest timeout (a route without one: the stack's default,
 * lib/constants.ts DEFAULT_ROUTE_TIMEOUT_SECONDS), and is then ended — its HTTP request answered
 * as API Gateway answers a function that timed out (500 `{"message":"Internal Server Error"}`), its
 * SQS batch left to come back. See docs/safe-defaults.md ("No hung request").
 *
 * `LOCAL_FUNCTION_TIMEOUT_SECONDS=<n>` (tests and rehearsals only) lowers every function's timeout to
 * at most n seconds, so an outage longer than every timeout can be rehearsed in seconds rather than
 * minutes. It may not go below {@link MIN_LOCAL_FUNCTION_TIMEOUT_SECONDS}: each worker keeps the
 * end of its run to hand messages back (the import worker 10 s), which a shorter timeout would
 * leave no time before.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { DEFAULT_ROUTE_TIMEOUT_SECONDS } from '../../lib/constants.js';

export const LOCAL_FUNCTION_TIMEOUT_ENV = 'LOCAL_FUNCTION_TIMEOUT_SECONDS';
export const MIN_LOCAL_FUNCTION_TIMEOUT_SECONDS = 15;

/** The cap `LOCAL_FUNCTION_TIMEOUT_SECONDS` sets, if any; throws (for the user) when it is not usable. */
export function localTimeoutCap(env: NodeJS.ProcessEnv): number | undefined {
  const text = env[LOCAL_FUNCTION_TIMEOUT_ENV]?.trim();
  if (!text) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < MIN_LOCAL_FUNCTION_TIMEOUT_SECONDS || n > 900) {
    throw new Error(
      `${LOCAL_FUNCTION_TIMEOUT_ENV} must be a whole number of seconds from ${MIN_LOCAL_FUNCTION_TIMEOUT_SECONDS} to 900, got '${text}'`,
    );
  }
  return n;
}

/** A function's timeout here: its manifest's (or the stack's default), within the local cap. */
export function functionTimeoutSeconds(
  manifestSeconds: number | undefined,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const seconds = manifestSeconds ?? DEFAULT_ROUTE_TIMEOUT_SECONDS;
  const cap = localTimeoutCap(env);
  return cap === undefined ? seconds : Math.min(seconds, cap);
}

/**
 * No execution context freed up while the request could still have done its work. Lambda would have
 * started another environment; the local runtime has a fixed number of worker threads, so it
 * refuses the request as busy (503 with `Retry-After`) instead of letting it time out (a 500).
 */
export class ContextsBusyError extends Error {
  override readonly name = 'ContextsBusyError';
  constructor(readonly waitedMs: number) {
    super(`no execution context free after ${Math.round(waitedMs)} ms`);
  }
}

/** A function run past its timeout (the message is Lambda's). */
export class FunctionTimeoutError extends Error {
  override readonly name = 'FunctionTimeoutError';
  constructor(readonly timeoutSeconds: number) {
    super(`Task timed out after ${timeoutSeconds.toFixed(2)} seconds`);
  }
}

/**
 * Waits for `work` at most `timeoutMs`; past it, rejects with {@link FunctionTimeoutError}. Node
 * cannot stop the work of a handler in this thread: it finishes in the background and its result
 * is dropped — but nothing it does then reaches DynamoDB, SQS or KMS, because every invocation's
 * calls stop at the end of its working time, before its timeout (`stopAt`,
 * functions/shared/call-budget.ts), so what a retry sees is what Lambda would have left. The
 * worker threads are ended instead (worker-pool.ts). `timeoutSeconds` is the function's setting, which
 * the message names as Lambda's does, when `timeoutMs` is what is left of it.
 */
export function withinTimeout<T>(work: Promise<T>, timeoutMs: number, timeoutSeconds = timeoutMs / 1000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new FunctionTimeoutError(timeoutSeconds)), Math.max(0, timeoutMs));
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * A Lambda context good enough for the handlers of `functionName`, for one invocation: its
 * remaining time (what the request deadline and the workers' budgets read) counts down from
 * `timeoutMs`.
 */
export function localContext(functionName: string, timeoutMs: number, memoryMb = 1024): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
