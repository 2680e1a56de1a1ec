/**
 * The per-app circuit breaker of the password-migration hook (docs/password-migration-hook.md
 * "Circuit breaker"). Closed: every pending sign-in calls the hook. After
 * {@link BREAKER_SETTINGS.failuresToOpen} "unavailable" outcomes in a row it opens: for
 * {@link BREAKER_SETTINGS.coolDownMs} no call is made and sign-ins answer 503 at once. Then it is
 * half-open: one sign-in probes the hook (the others still answer 503); a probe that gets an
 * answer closes it, one that does not opens it for another cool-down. A match or a mismatch both
 * count as answers. State lives in one execution environment (one Lambda instance, or the local
 * process): each opens on its own failures. Pure; the clock is given.
 */

export const BREAKER_SETTINGS = { failuresToOpen: 5, coolDownMs: 30_000 } as const;

export type BreakerState = 'closed' | 'open' | 'half-open';

export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | undefined;
  private probing = false;

  constructor(
    private readonly now: () => number,
    private readonly settings: { failuresToOpen: number; coolDownMs: number } = BREAKER_SETTINGS,
  ) {}

  state(): BreakerState {
    if (this.openedAt === undefined) return 'closed';
    return this.now() - this.openedAt >= this.settings.coolDownMs ? 'half-open' : 'open';
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

  /** The outcome of a call that was let through. */
  record(outcome: 'answered' | 'unavailable'): void {
    const wasProbe = this.probing;
    this.probing = false;
    if (outcome === 'answered') {
      this.failures = 0;
      this.openedAt = undefined;
      return;
    }
    this.failures += 1;
    if (wasProbe || this.failures >= this.settings.failuresToOpen) this.openedAt = this.now();
  }
}
