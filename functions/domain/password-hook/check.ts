/**
 * One check of a password through the app's hook, within its budget
 * (docs/password-migration-hook.md "Outcomes and answers"): the circuit breaker first, then a signed POST;
 * a refused connection is tried once more if the budget has time left, nothing else is retried.
 * Pure: the transport, the secret, the clock and the breaker are given.
 */
import type { CircuitBreaker } from './breaker.js';
import {
  type HookRequestFields,
  type HookVerdict,
  hookRequestBody,
  readHookAnswer,
  SIGNATURE_HEADER,
  signatureHeader,
} from './protocol.js';

export type TransportOutcome =
  | { readonly kind: 'answer'; readonly status: number; readonly body: string | undefined }
  | { readonly kind: 'failed'; readonly cause: 'timeout' | 'refused' | 'network' };

/** Sends one request; never follows a redirect; gives up after `timeoutMs`; reads at most 1 KB + 1. */
export interface HookTransport {
  post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<TransportOutcome>;
}

export interface PasswordHookPorts {
  readonly url: string;
  readonly timeoutMs: number;
  /** The signing secret in clear (opened when needed). */
  secret(): Promise<string>;
  readonly transport: HookTransport;
  /** The app's breaker (one per app per execution environment). */
  readonly breaker: CircuitBreaker;
  /** Monotonic milliseconds. */
  now(): number;
  /** Wall-clock Unix seconds (the signed timestamp). */
  epochSeconds(): number;
  /** Every outcome with the time it took (metrics). */
  observe?(verdict: HookVerdict, elapsedMs: number): void;
}

export interface HookCheck {
  readonly verdict: HookVerdict;
  /** For an unavailable verdict: when to try again (`Retry-After`). */
  readonly retryAfterSeconds: number;
}

/** Seconds a client is told to wait after an unavailable answer while the breaker is still closed. */
const RETRY_AFTER_SECONDS = 5;

export async function checkPasswordWithHook(
  ports: PasswordHookPorts,
  fields: Omit<HookRequestFields, 'timestamp'>,
): Promise<HookCheck> {
  const started = ports.now();
  if (!ports.breaker.tryAcquire()) {
    const verdict: HookVerdict = { kind: 'unavailable', cause: 'circuit-open' };
    ports.observe?.(verdict, 0);
    return { verdict, retryAfterSeconds: ports.breaker.retryAfterSeconds() };
  }
  let secret: string;
  try {
    secret = await ports.secret();
  } catch (error) {
    // A half-open breaker's probe must end either way, or the breaker would wait for it forever.
    ports.breaker.record('unavailable');
    throw error;
  }
  const timestamp = ports.epochSeconds();
  const body = hookRequestBody({ ...fields, timestamp });
  const headers = { 'Content-Type': 'application/json', [SIGNATURE_HEADER]: signatureHeader(secret, timestamp, body) };
  let verdict: HookVerdict | undefined;
  for (let attempt = 0; attempt < 2 && verdict === undefined; attempt++) {
    const left = ports.timeoutMs - (ports.now() - started);
    if (left <= 0) {
      verdict = { kind: 'unavailable', cause: 'timeout' };
      break;
    }
    const outcome = await ports.transport.post(ports.url, headers, body, left);
    if (outcome.kind === 'answer') verdict = readHookAnswer(outcome.status, outcome.body);
    else if (outcome.cause !== 'refused' || attempt === 1) verdict = { kind: 'unavailable', cause: outcome.cause };
  }
  const final = verdict ?? { kind: 'unavailable', cause: 'refused' };
  ports.breaker.record(final.kind === 'unavailable' ? 'unavailable' : 'answered');
  ports.observe?.(final, ports.now() - started);
  const retryAfterSeconds =
    ports.breaker.state() === 'closed' ? RETRY_AFTER_SECONDS : ports.breaker.retryAfterSeconds();
  return { verdict: final, retryAfterSeconds };
}
