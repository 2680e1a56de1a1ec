/**
 * One check of a password through the app's hook, within its budget
 * (docs/password-migration-hook.md "Outcomes and answers"): the circuit breaker first, then a signed POST;
 * a refused connection is tried once more if the budget has time left, nothing else is retried.
 * Pure: the transport, the secret, the clock and the breaker are given.
 */
import type { CallOutcome, CircuitBreaker } from './breaker.js';
import {
  type HookRequestFields,
  type HookVerdict,
  hookRequestBody,
  MAX_REQUEST_BYTES,
  readHookAnswer,
  SIGNATURE_HEADER,
  signatureHeader,
} from './protocol.js';

export type TransportOutcome =
  | { readonly kind: 'answer'; readonly status: number; readonly body: string | undefined }
  | { readonly kind: 'failed'; readonly cause: 'timeout' | 'refused' | 'network' | 'forbidden-address' };

/**
 * Sends one request; never follows a redirect; gives up after `timeoutMs`; reads at most 1 KB + 1;
 * never connects to an address the core must not call (`forbidden-address`, docs/security.md
 * "Outbound requests").
 */
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

/**
 * Statuses that refuse one request for what it carries (a malformed, too large or unprocessable
 * body: a password the old system will not take), not the hook as a whole.
 */
const REQUEST_REFUSED_STATUSES: ReadonlySet<number> = new Set([400, 413, 422]);

/**
 * Whether the hook refused this one request for its content (400, 413, 422). Such a password is
 * not one the old system holds: the sign-in answers as for a mismatch, and the breaker does not
 * count it — whoever picks the password must not be able to open the breaker for everyone, nor
 * get an answer an unknown email would not get. It still counts as unavailable in the metrics, so
 * the alarm catches an endpoint that refuses every request.
 */
export function refusesRequest(verdict: HookVerdict): boolean {
  return (
    verdict.kind === 'unavailable' &&
    verdict.cause === 'status' &&
    verdict.status !== undefined &&
    REQUEST_REFUSED_STATUSES.has(verdict.status)
  );
}

/** What a call's verdict means for the breaker. */
function breakerOutcome(verdict: HookVerdict): CallOutcome {
  if (verdict.kind !== 'unavailable') return 'answered';
  return refusesRequest(verdict) ? 'neutral' : 'unavailable';
}

/** `Retry-After` of an unavailable hook: 5 s while the breaker is closed, else its cool-down left. */
const retryAfterOf = (breaker: CircuitBreaker) =>
  breaker.state() === 'closed' ? RETRY_AFTER_SECONDS : breaker.retryAfterSeconds();

/** How a sign-in that does not call the hook answers so that it reads as a pending user's. */
export interface PendingPace {
  /** How long a pending user's call of the hook would take now (0 when none would be made). */
  readonly callMs: number;
  /** Set while the hook is unavailable: the failure is the hook's 503 with this `Retry-After`. */
  readonly unavailable: { readonly retryAfterSeconds: number } | undefined;
}

/**
 * What a pending user's sign-in would go through now in this execution environment
 * (docs/password-migration-hook.md "No pending-user oracle"), for the sign-ins that do not call
 * the hook — an unknown email, a wrong password — to go through the same: the call's expected
 * duration, and, while the hook is unavailable (its last call failed, or the breaker is open), the
 * `Retry-After` that user would get — the breaker's count-down when it lets no call through, else
 * what a call failing as the last ones did would leave (the whole cool-down if that call opens
 * the breaker, else 5 s).
 */
export function pendingPace(ports: PasswordHookPorts): PendingPace {
  const { breaker } = ports;
  const callMs = breaker.expectedCallMs();
  if (breaker.available()) return { callMs, unavailable: undefined };
  if (!breaker.admits()) return { callMs, unavailable: { retryAfterSeconds: breaker.retryAfterSeconds() } };
  const retryAfterSeconds = breaker.failureWouldOpen() ? breaker.coolDownSeconds() : RETRY_AFTER_SECONDS;
  return { callMs, unavailable: { retryAfterSeconds } };
}

export async function checkPasswordWithHook(
  ports: PasswordHookPorts,
  fields: Omit<HookRequestFields, 'timestamp'>,
): Promise<HookCheck> {
  const started = ports.now();
  const timestamp = ports.epochSeconds();
  const body = hookRequestBody({ ...fields, timestamp });
  // Never sent, never counted: no password of that size is anybody's.
  if (Buffer.byteLength(body, 'utf8') > MAX_REQUEST_BYTES)
    return { verdict: { kind: 'mismatch' }, retryAfterSeconds: 0 };
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
  const elapsedMs = ports.now() - started;
  ports.breaker.record(breakerOutcome(final), elapsedMs);
  ports.observe?.(final, elapsedMs);
  return { verdict: final, retryAfterSeconds: retryAfterOf(ports.breaker) };
}
