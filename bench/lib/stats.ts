/**
 * The shared runner: warm-up runs (discarded), then N measured runs; every numeric metric a run
 * returns is summarised as median / min / max over the measured runs.
 */

export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly samples: readonly number[];
}

export function summarise(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length === 0
      ? Number.NaN
      : sorted.length % 2 === 1
        ? (sorted[mid] as number)
        : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] ?? Number.NaN, max: sorted[sorted.length - 1] ?? Number.NaN, samples };
}

/** Nearest-rank percentile (p in 0…100) of raw observations, e.g. request latencies of one run. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** Runs `run`, adds how long it took (ms) to `samples`, and gives back its result. */
export async function timed<T>(samples: number[], run: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await run();
  samples.push(performance.now() - start);
  return result;
}

export interface RunPlan {
  readonly warmup: number;
  readonly runs: number;
}

export type Metrics = Record<string, number>;

/**
 * Runs `run` warm-up + measured times (sequentially: runs never overlap) and summarises every
 * metric. `run` gets the run index (negative for warm-up runs) so it can use fresh data each time.
 */
export async function measure(
  label: string,
  plan: RunPlan,
  run: (index: number) => Promise<Metrics>,
  log: (line: string) => void,
): Promise<Record<string, Summary>> {
  for (let i = 0; i < plan.warmup; i++) {
    const m = await run(-1 - i);
    log(`  ${label} warm-up ${i + 1}/${plan.warmup}: ${format(m)}`);
  }
  const collected = new Map<string, number[]>();
  for (let i = 0; i < plan.runs; i++) {
    const m = await run(i);
    log(`  ${label} run ${i + 1}/${plan.runs}: ${format(m)}`);
    for (const [k, v] of Object.entries(m)) collected.set(k, [...(collected.get(k) ?? []), v]);
  }
  return Object.fromEntries([...collected].map(([k, v]) => [k, summarise(v)]));
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function format(m: Metrics): string {
  return Object.entries(m)
    .map(([k, v]) => `${k}=${round(v)}`)
    .join(' ');
}
