/**
 * The pace of a staging request's groups (docs/bulk-import.md "A request cut short"): a request's
 * size is bounded by its time, not only by the 10,000-user limit. A group of rows starts only while
 * the time left before the request's deadline still holds the longest group seen so far with a
 * margin (a first guess before any has finished; at least what the oldest group under way has
 * taken so far) and what the request needs after its last group; otherwise the
 * request stops at that group boundary, keeps the groups written and answers 503 with
 * `Retry-After`, and its repeat stages only the rest.
 */

/** What one group (≤ 98 rows, their marker, their import messages) is presumed to take before any finished. */
export const FIRST_GROUP_GUESS_MS = 2_000;
/** A group may take longer than the longest so far (a machine or table slowing down): by this factor. */
export const GROUP_MARGIN = 1.25;
/**
 * Kept before the deadline for what follows the last group: remembering the answer (its gzipped
 * parts), the answer itself.
 */
export const AFTER_GROUPS_RESERVE_MS = 1_000;

export class GroupPace {
  private longestMs = 0;
  private stagedNow = 0;
  private stagedBefore = 0;
  /** Start times of the groups under way. */
  private readonly running: number[] = [];

  /**
   * @param deadline epoch ms of the request's deadline (undefined: no budget, every group starts)
   * @param now the clock
   */
  constructor(
    private readonly deadline: number | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * What the next group is presumed to take: the longest seen so far with a margin (else the first
   * guess), and at least as long as the oldest group under way has taken until now.
   */
  get groupMs(): number {
    const seen = this.longestMs > 0 ? this.longestMs * GROUP_MARGIN : FIRST_GROUP_GUESS_MS;
    const oldest = this.running.length > 0 ? Math.min(...this.running) : undefined;
    return oldest === undefined ? seen : Math.max(seen, this.now() - oldest);
  }

  /** Users of the request staged so far, by this attempt or an earlier one of the same request. */
  get staged(): number {
    return this.stagedNow + this.stagedBefore;
  }

  /** Users this attempt staged. */
  get stagedByThisAttempt(): number {
    return this.stagedNow;
  }

  /**
   * Whether a group started now would finish, with the reserve, before the deadline; when it would,
   * the group is taken as started now.
   */
  mayStart(): boolean {
    const now = this.now();
    if (this.deadline !== undefined && now + this.groupMs + AFTER_GROUPS_RESERVE_MS > this.deadline) return false;
    this.running.push(now);
    return true;
  }

  /** A group this attempt did: `users` staged in `ms` (since its `mayStart`). */
  done(users: number, ms: number): void {
    this.stagedNow += users;
    this.longestMs = Math.max(this.longestMs, ms);
    // The group under way that started closest to `ms` ago is this one.
    const started = this.now() - ms;
    let at = -1;
    for (const [i, t] of this.running.entries()) {
      if (at === -1 || Math.abs(t - started) < Math.abs((this.running[at] as number) - started)) at = i;
    }
    if (at !== -1) this.running.splice(at, 1);
  }

  /** A group an earlier attempt did: `users` staged. */
  doneBefore(users: number): void {
    this.stagedBefore += users;
  }
}
