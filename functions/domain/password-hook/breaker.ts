/**
 * The per-app circuit breaker of the password-migration hook (docs/password-migration-hook.md
 * "Circuit breaker"). Closed: every pending sign-in calls the hook. After
 * {@link BREAKER_SETTINGS.failuresToOpen} "unavailable" outcomes in a row it opens: for
 * {@link BREAKER_SETTINGS.coolDownMs} no call is made and sign-ins answer 503 at once. Then it is
 * half-open: one sign-in probes the hook (the others still answer 503); a probe that gets an
 * answer closes it, one that does not opens it for another cool-down. A match or a mismatch both
 * count as answers; a refusal of one request for its content (a 400, 413 or 422: a password the
 * old system will not take) is neither, so traffic an attacker shapes cannot open it. State lives
 * in one execution environment (one Lambda instance, or one worker thread locally): each opens on
 * its own failures. It also tells sign-ins that never call the hook whether the hook is available
 * now ({@link CircuitBreaker.available}), and what a call would take and leave
 * ({@link CircuitBreaker.expectedCallMs}, {@link CircuitBreaker.failureWouldOpen}), so that they
 * can answer as a pending user's sign-in would
 * (docs/password-migration-hook.md "No pending-user oracle"). Pure; the clock is given.
 */

export const BREAKER_SETTINGS = { failuresToOpen: 5, coolDownMs: 30_000 } as const;

export type BreakerState = 'closed' | 'open' | 'half-open';

/** How many recent calls' durations {@link CircuitBreaker.expectedCallMs} takes the median of. */
const CALLS_KEPT = 5;

export type CallOutcome = 'answered' | 'unavailable' | 'neutral';

export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | undefined;
  private probing = false;
  private failingCalls: number[] = [];
  private answeredCalls: number[] = [];

  constructor(
    private readonly now: () => number,
    private readonly settings: { failuresToOpen: number; coolDownMs: number } = BREAKER_SETTINGS,
  ) {}

  state(): BreakerState {
    if (this.openedAt === undefined) return 'closed';
    return this.now() - this.openedAt >= this.settings.coolDownMs ? 'half-open' : 'open';
  }

  /**
   * Whether the hook counts as available: the last call that decided anything got an answer
   * (or none was made yet). False from the first failure on until a call is answered again.
   */
  available(): boolean {
    return this.failures === 0 && this.openedAt === undefined;
  }

  /** Whether a call would be let through now (closed, or half-open with no probe under way). */
  admits(): boolean {
    const state = this.state();
    return state === 'closed' || (state === 'half-open' && !this.probing);
  }

  /** Whether one more failing call now would open the breaker (a failed probe reopens it). */
  failureWouldOpen(): boolean {
    return this.state() !== 'closed' || this.failures + 1 >= this.settings.failuresToOpen;
  }

  /** The whole cool-down in seconds: `Retry-After` right after the breaker opens. */
  coolDownSeconds(): number {
    return Math.max(1, Math.ceil(this.settings.coolDownMs / 1000));
  }

  /**
   * How long a call made now would take, as far as this environment knows: 0 when none would be
   * let through; else the median of the last calls that failed while the hook is unavailable, or
   * of the last answered calls while it is available (0 before any).
   */
  expectedCallMs(): number {
    if (!this.admits()) return 0;
    const recent = this.available() ? this.answeredCalls : this.failingCalls;
    const sorted = [...recent].sort((a, b) => a - b);
    return sorted.length === 0 ? 0 : (sorted[Math.floor(sorted.length / 2)] as number);
  }

  /** Whether a call may be made now (a half-open breaker lets one probe through at a time). */
  tryAcquire(): boolean {
    const state = this.state();
    if (state === 'closed') return true;
    if (state === 'open' || this.probing) return false;
    this.probing = true;
    return true;
  }

  /** Seconds until a call may be made again (at least 1), for `Retry-After`. */
  retryAfterSeconds(): number {
    if (this.openedAt === undefined) return 1;
    const left = this.settings.coolDownMs - (this.now() - this.openedAt);
    return Math.max(1, Math.ceil(left / 1000));
  }

  /**
   * The outcome of a call that was let through, and how long it took. A neutral outcome ends a
   * probe without deciding anything: the next sign-in probes again.
   */
  record(outcome: CallOutcome, elapsedMs = 0): void {
    const wasProbe = this.probing;
    this.probing = false;
    if (outcome === 'neutral') return;
    if (outcome === 'answered') {
      this.failures = 0;
      this.openedAt = undefined;
      this.failingCalls = [];
      this.answeredCalls = [...this.answeredCalls, elapsedMs].slice(-CALLS_KEPT);
      return;
    }
    this.failingCalls = [...this.failingCalls, elapsedMs].slice(-CALLS_KEPT);
    this.failures += 1;
    if (wasProbe || this.failures >= this.settings.failuresToOpen) this.openedAt = this.now();
  }
}
