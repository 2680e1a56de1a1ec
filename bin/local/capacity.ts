/**
 * The capacity of one on-demand table as AWS documents it, for the local runtime's capacity-limited
 * mode (`npm start -- --write-capacity=<units>`): DynamoDB Local never throttles, this does.
 *
 * Amazon DynamoDB Developer Guide, "DynamoDB on-demand capacity mode" / "Initial throughput and
 * scaling properties": a new on-demand table serves up to 4,000 write request units (or 12,000 read
 * request units, or any linear combination of the two) per second — its "previous peak" is set to
 * half that — and instantly accommodates up to double its previous peak; traffic beyond double the
 * previous peak within 30 minutes may be throttled. A table is limited to 40,000 units per second
 * by the default per-table quota. So here:
 *
 * - the budget at time t is max(initial, 2 × the highest one-second consumption observed at least
 *   `doublingSeconds` before t), at most `maxUnits`: a table driven at its budget doubles it one
 *   doubling period later, and so on;
 * - consumption is counted in write units, a read unit counting a third (4,000 WRU = 12,000 RRU);
 * - admission is a token bucket holding at most one second of the budget: a request is admitted
 *   while the bucket holds its units (or, for a request larger than the whole bucket, while the
 *   bucket is full; the bucket then owes the rest), and refused — throttled — otherwise, taking
 *   nothing. A read whose size is only known once it is answered (Query, Scan) is admitted on what
 *   the bucket holds and charged afterwards.
 */

export interface CapacitySettings {
  /** Units per second a new table serves (its budget at first). */
  readonly initialUnits: number;
  /** Seconds after which a sustained peak raises the budget to twice it (AWS: 30 minutes). */
  readonly doublingSeconds: number;
  /** The per-table quota: the budget never passes it. */
  readonly maxUnits: number;
}

/** AWS's default per-table quota for on-demand tables (write units per second). */
const DEFAULT_TABLE_QUOTA = 40_000;
/** AWS: double the previous peak within 30 minutes. */
const AWS_DOUBLING_SECONDS = 1_800;

/** Reads count a third of a write unit (the linear combination of 4,000 WRU and 12,000 RRU). */
export const READ_UNIT_WEIGHT = 1 / 3;

export interface WindowTotals {
  /** Units admitted (writes + reads weighted). */
  units: number;
  /** Requests refused. */
  throttled: number;
  /** Requests admitted. */
  admitted: number;
}

export class TableCapacity {
  private tokens: number;
  private lastRefill: number;
  /** Consumption per whole second (epoch second → units), kept for the doubling rule. */
  private readonly perSecond = new Map<number, number>();
  /** Highest one-second consumption among the seconds at least a doubling period old. */
  private settledPeak = 0;
  private readonly totals: WindowTotals = { units: 0, throttled: 0, admitted: 0 };

  constructor(
    readonly settings: CapacitySettings,
    now: number,
  ) {
    this.lastRefill = now;
    this.tokens = settings.initialUnits;
  }

  /** The budget (units per second) at `now`. */
  budget(now: number): number {
    const horizon = Math.floor((now - this.settings.doublingSeconds * 1000) / 1000);
    for (const [second, units] of this.perSecond) {
      if (second > horizon) continue;
      this.settledPeak = Math.max(this.settledPeak, units);
      this.perSecond.delete(second);
    }
    return Math.min(this.settings.maxUnits, Math.max(this.settings.initialUnits, 2 * this.settledPeak));
  }

  private refill(now: number): number {
    const budget = this.budget(now);
    const dt = Math.max(0, now - this.lastRefill) / 1000;
    this.lastRefill = now;
    this.tokens = Math.min(budget, this.tokens + budget * dt);
    return budget;
  }

  /** Counts consumption; a second's peak is what the budget let through (a burst from the bucket is not growth). */
  private record(units: number, now: number, budget: number): void {
    const second = Math.floor(now / 1000);
    this.perSecond.set(second, Math.min(budget, (this.perSecond.get(second) ?? 0) + units));
    this.totals.units += units;
  }

  /** Admits a request of `units` (and consumes them) or refuses it (throttled; nothing consumed). */
  admit(units: number, now: number): boolean {
    const budget = this.refill(now);
    const needed = Math.min(units, budget);
    if (this.tokens < needed) {
      this.totals.throttled++;
      return false;
    }
    this.tokens -= units;
    this.totals.admitted++;
    this.record(units, now, budget);
    return true;
  }

  /** Units of an admitted request known only afterwards (a Query's or a Scan's reads). */
  charge(units: number, now: number): void {
    const budget = this.refill(now);
    this.tokens -= units;
    this.record(units, now, budget);
  }

  /** The totals since the last call, and resets them. */
  takeTotals(): WindowTotals {
    const out = { ...this.totals };
    this.totals.units = 0;
    this.totals.throttled = 0;
    this.totals.admitted = 0;
    return out;
  }
}

/**
 * `--write-capacity=<units>[,<doubling seconds>]`: the initial budget (4,000 as AWS gives a new
 * on-demand table, 40,000 as a table warmed to the default quota, or a local figure small enough to
 * be reached on one machine) and the doubling period (default AWS's 30 minutes; shorter to see the
 * growth in a rehearsal). Throws a RangeError with the reason.
 */
export function parseWriteCapacity(text: string): CapacitySettings {
  const [unitsText, doublingText, ...rest] = text.split(',').map((s) => s.trim());
  const whole = (value: string | undefined, min: number, max: number, what: string): number | undefined => {
    if (value === undefined || value === '') return undefined;
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) {
      throw new RangeError(`${what} must be a whole number from ${min} to ${max}, got '${value}'`);
    }
    return n;
  };
  if (rest.length > 0) throw new RangeError(`expected <units>[,<doubling seconds>], got '${text}'`);
  const initialUnits = whole(unitsText, 10, 1_000_000, 'the write capacity');
  if (initialUnits === undefined) throw new RangeError('needs a number of write units per second, e.g. 4000');
  const doublingSeconds = whole(doublingText, 1, 86_400, 'the doubling period') ?? AWS_DOUBLING_SECONDS;
  return { initialUnits, doublingSeconds, maxUnits: Math.max(DEFAULT_TABLE_QUOTA, initialUnits) };
}

/** One capacity line of the runtime's output (capacity-proxy.ts prints one per table every 10 s). */
export interface CapacityWindow {
  readonly table: string;
  /** Units per second used over the window (writes, and reads at a third). */
  readonly used: number;
  /** The table's budget at the window's end. */
  readonly budget: number;
  readonly seconds: number;
  readonly throttled: number;
  readonly requests: number;
}

const CAPACITY_LINE =
  /^Capacity: table (\S+) used (\d+) of (\d+) WRU\/s over (\d+) s \(\d+ %\), (\d+) of (\d+) requests throttled$/gm;

/** The capacity lines of a runtime's output, in order (the bench and the tests read them). */
export function capacityWindows(output: string): CapacityWindow[] {
  return [...output.matchAll(CAPACITY_LINE)].map((m) => ({
    table: m[1] as string,
    used: Number(m[2]),
    budget: Number(m[3]),
    seconds: Number(m[4]),
    throttled: Number(m[5]),
    requests: Number(m[6]),
  }));
}
