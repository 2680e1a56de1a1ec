/** At most `limit` chunks in flight; the first failure stops the rest (no new chunk starts after it). */
export class InFlight {
  private readonly running = new Set<Promise<void>>();
  private failure: unknown;

  constructor(private readonly limit: number) {}

  /** Resolves once fewer than `limit` run; throws the first failure of an earlier task instead. */
  async room(): Promise<void> {
    while (this.running.size >= this.limit) await Promise.race(this.running);
    if (this.failure) throw this.failure;
  }

  /** Starts `task` once fewer than `limit` run; throws the first failure of an earlier task instead. */
  async start(task: () => Promise<void>): Promise<void> {
    await this.room();
    const running: Promise<void> = task()
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => this.running.delete(running));
    this.running.add(running);
  }

  /** Waits for every task; throws the first failure. */
  async finish(): Promise<void> {
    await Promise.all(this.running);
    if (this.failure) throw this.failure;
  }

  /** Waits for every task, whatever happened (the run is stopping). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.running);
  }
}
