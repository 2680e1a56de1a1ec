/**
 * How many users each staging (or checking) request carries. The core stages a request within its
 * time budget and stops at a group boundary when it cannot finish (503 with `Retry-After`; the same
 * request sent again stages the rest: docs/bulk-import.md), so a request's size is best set by how
 * long the core takes, not only by the 10,000-user limit: `--batch-size auto` (the default) starts
 * small, grows while requests finish well inside the target time, and shrinks on a slow answer or
 * a refusal (additive-increase/multiplicative-decrease's shape, with a growth that follows the
 * measured speed). `--batch-size <n>` sends n users per request, whatever happens.
 */

/** The automatic sizing's bounds and goal. */
export interface AutoSizing {
  /** Users in the first request. */
  readonly start: number;
  readonly min: number;
  readonly max: number;
  /** How long a request should take; well inside the core's budget (29 s on AWS and locally). */
  readonly targetMs: number;
}

/** Users in the first request of `--batch-size auto`. */
export const AUTO_START = 500;
/** The smallest request `--batch-size auto` sends. */
export const AUTO_MIN = 50;
/** What `--request-seconds` defaults to: a third of the core's 29 s budget. */
export const DEFAULT_REQUEST_SECONDS = 10;
/** How much a request may grow over the largest one answered well inside the target time. */
const GROWTH = 2;

export interface ChunkSizer {
  /** Users for the next request. */
  next(): number;
  /** A request of `users` was answered (the core took it, or refused some users by name) after `ms`. */
  answered(users: number, ms: number): void;
  /** A request of `users` was refused for now (5xx, 409, 429, a timeout, a lost connection). */
  refused(users: number): void;
}

/** `--batch-size <n>`: every request carries `n` users (the last one what is left). */
export class FixedSize implements ChunkSizer {
  constructor(private readonly size: number) {}
  next(): number {
    return this.size;
  }
  answered(): void {}
  refused(): void {}
}

/**
 * `--batch-size auto`:
 * - answered within half the target: the size grows (×2 over the larger of itself and the answered
 *   request), but never beyond what the measured speed says fits in the target;
 * - answered after more than the target: the size shrinks to what fits in the target at the
 *   measured speed;
 * - refused for now: the size halves (the refused request itself is sent again as it was: the
 *   same body under the same Idempotency-Key).
 * Always within [min, max].
 */
export class AdaptiveSize implements ChunkSizer {
  private size: number;

  constructor(private readonly sizing: AutoSizing) {
    this.size = this.clamp(sizing.start);
  }

  next(): number {
    return this.size;
  }

  answered(users: number, ms: number): void {
    if (users <= 0) return;
    const fits = Math.floor((users * this.sizing.targetMs) / Math.max(ms, 1));
    if (ms <= this.sizing.targetMs / 2) this.size = this.clamp(Math.min(Math.max(this.size, users) * GROWTH, fits));
    else if (ms > this.sizing.targetMs) this.size = this.clamp(Math.min(this.size, fits));
  }

  refused(users: number): void {
    this.size = this.clamp(Math.floor(Math.min(this.size, Math.max(users, 1)) / 2));
  }

  private clamp(n: number): number {
    return Math.max(this.sizing.min, Math.min(this.sizing.max, Math.floor(n)));
  }
}
