/**
 * How long the dummy verify of an unknown email takes, as measured: the floor every failed sign-in
 * is held to (functions/domain/users/sign-in.ts), so the answer's timing does not tell which
 * emails have an account, whatever hash the account has.
 */

/** Samples kept: enough for a stable median, few enough to follow a change of load quickly. */
const FLOOR_SAMPLES = 15;

/**
 * The durations of the most recent computations that cost what the dummy verify costs (the dummy
 * itself, and verifies of hashes of the app's algorithm at its settings); the floor is their
 * median, which one slow outlier (a garbage collection, a descheduled thread) does not move.
 */
export class RecentDurations {
  private readonly samples: number[] = [];
  private next = 0;

  constructor(private readonly size: number = FLOOR_SAMPLES) {}

  add(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    if (this.samples.length < this.size) this.samples.push(ms);
    else this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.size;
  }

  /** The median of the kept samples; undefined before the first. */
  median(): number | undefined {
    if (this.samples.length === 0) return undefined;
    const sorted = [...this.samples].sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 === 1
      ? (sorted[middle] as number)
      : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  }
}
