/**
 * How many users each staging (or checking) request carries. The core stages a request within its
 * time budget and stops at a group boundary when it cannot finish (503 with `Retry-After`; the same
 * request sent again stages the rest: docs/bulk-import.md), so a request's size is best set by how
 * long the core takes, not only by the 10,000-user limit: `--batch-size auto` (the default) starts
 * small, grows while requests finish well inside the target time, and shrinks on a slow answer or
 * a refusal (additive-increase/multiplicative-decrease). `--batch-size <n>` sends n users per
 * request, whatever happens.
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

/**
 * Users in the first request of `--batch-size auto`, and its step when it grows by adding. A request
 * costs the core about as long below some thousands of users as at them (its rows go in one group
 * per counter shard touched, and a small request touches them all), so sizes smaller than this
 * gain nothing: it is also the smallest.
 */
export const AUTO_START = 1_000;
/** What `--request-seconds` defaults to: about a third of the core's 29 s budget. */
export const DEFAULT_REQUEST_SECONDS = 10;

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
 * `--batch-size auto`, an additive-increase/multiplicative-decrease of the request's size, measured
 * against the request it is told about (with two requests in flight, answers come for requests
 * formed at other sizes):
 * - answered within half the target: the next request is twice that one (the core is far from busy);
 * - answered within the target: one step (`start`) larger than that one;
 * - answered after more than the target: that one scaled to the target (at least halved);
 * - refused for now: half that one (the refused request itself is sent again as it was: the same
 *   body under the same Idempotency-Key).
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
    const { targetMs, start } = this.sizing;
    if (ms <= targetMs / 2) this.grow(users * 2);
    else if (ms <= targetMs) this.grow(users + start);
    else this.shrink(users * Math.max(0.5, targetMs / ms));
  }

  refused(users: number): void {
    this.shrink(Math.max(users, 1) / 2);
  }

  private grow(to: number): void {
    this.size = this.clamp(Math.max(this.size, to));
  }

  private shrink(to: number): void {
    this.size = this.clamp(Math.min(this.size, to));
  }

  private clamp(n: number): number {
    return Math.max(this.sizing.min, Math.min(this.sizing.max, Math.floor(n)));
  }
}
