/**
 * The import's pace: how fast an import-worker execution environment writes to a table, raised
 * while DynamoDB takes the writes and lowered as soon as it throttles them, so an import follows a
 * table's capacity — a new on-demand table's 4,000 write units per second, its growth as DynamoDB
 * doubles the previous peak, a warm table's 40,000 — without anyone tuning it, and leaves the
 * table's live traffic (sign-ins, sessions) room: only the import paces itself, and it yields first.
 *
 * One {@link WritePace} per table per execution environment (module state: a warm Lambda instance
 * keeps it from one invocation to the next). It is a token bucket of table write units at a rate
 * that a congestion controller sets, as TCP's CUBIC sets a window:
 *
 * - before any throttling, the rate doubles every `doubleEverySeconds` of saturated running (slow
 *   start) from `start`;
 * - a throttled attempt (DynamoDB's own throttling answers, seen per attempt, the SDK's retries
 *   included) cuts the rate to `decrease` × the rate that met it — at most once per `reactSeconds`,
 *   so one burst of refusals is one cut — and remembers a plateau, `plateau` × that rate;
 * - then the rate climbs back to the plateau along a concave cubic (as TCP's CUBIC does): quickly
 *   at first, flat as it nears the plateau, just below what the table refused; `probeSeconds` after
 *   the cut, without throttling meanwhile, the table may have room to spare — other traffic
 *   stopped, or DynamoDB raised the capacity (on demand, it doubles a sustained peak) — so the rate
 *   probes upwards, doubling every `probeDoublingSeconds`, until the next throttle. So the import
 *   meets throttling about once per probe period, not continuously, and sits just below the
 *   table's capacity in between: the room live requests use.
 *
 * Only saturated time counts — time in which a write waited for units: time in which the
 * environment was not using its rate (too few messages, hashing passwords) does not raise it.
 * Between `floor` and `ceiling` always; `ceiling` is the configured cap (IMPORT_WRITE_UNITS).
 *
 * Installed on the import worker's DynamoDB client only ({@link paceWrites}): every attempt of a
 * write waits for its units (functions/shared/request-units.ts), every attempt's throttling answer
 * cuts the rate. Sign-ins and every other route are never paced. A write that could not start
 * before the invocation's deadline throws a BackpressureError: its users come back later.
 * docs/import-pipeline.md "Following the table" tells the whole story.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { currentRetryPolicy } from './call-budget.js';
import { BackpressureError } from './errors.js';
import { logger } from './logger.js';
import { tableOf, writeUnitsOf } from './request-units.js';

export interface PaceSettings {
  /** Write units per second an environment starts at, per table. */
  readonly start: number;
  /** The rate never goes below this (units per second). */
  readonly floor: number;
  /** The rate never goes above this (the configured ceiling; Infinity: none). */
  readonly ceiling: number;
  /** After a throttle, the rate is this fraction of the rate that met it. */
  readonly decrease: number;
  /** The plateau the rate climbs back to, as a fraction of the rate that met the throttle. */
  readonly plateau: number;
  /** Saturated seconds from a cut to the plateau; beyond it the rate probes upwards. */
  readonly probeSeconds: number;
  /** While probing: saturated seconds per doubling. */
  readonly probeDoublingSeconds: number;
  /** Before the first throttle: saturated seconds per doubling. */
  readonly doubleEverySeconds: number;
  /** One cut per this many seconds at most. */
  readonly reactSeconds: number;
  /** Unused units kept at most, in seconds of the rate. */
  readonly burstSeconds: number;
}

/** How long a write waited or may wait, and how the pace stands (for logs and tests). */
export interface PaceState {
  readonly rate: number;
  /** The plateau, once a throttle set one. */
  readonly plateau: number | undefined;
  readonly cuts: number;
}

/** Controller constants (the rates come from the environment: {@link paceSettingsFrom}). */
export const PACE_CONTROL = {
  decrease: 0.7,
  plateau: 0.9,
  probeSeconds: 20,
  probeDoublingSeconds: 4,
  doubleEverySeconds: 2,
  reactSeconds: 1,
  burstSeconds: 0.5,
} as const;

/** A write-unit token bucket whose rate follows the table (see the module comment). Clock in ms. */
export class WritePace {
  private tokens: number;
  private lastUpdate: number;
  /** A write is waiting for units: the environment is using all of its rate. */
  private blocked = false;
  private lastCut = Number.NEGATIVE_INFINITY;
  /** Saturated ms since the current epoch began (a cut, or the start). */
  private grown = 0;
  /** The rate the epoch began with (slow start) or the plateau (after a cut). */
  private base: number;
  private wMax: number | undefined;
  private cuts = 0;

  constructor(
    readonly settings: PaceSettings,
    now: number,
  ) {
    this.base = clamp(settings.start, settings);
    this.lastUpdate = now;
    this.tokens = this.base * settings.burstSeconds;
  }

  /** The current rate, in units per second. */
  get rate(): number {
    const s = this.settings;
    const seconds = this.grown / 1000;
    if (this.wMax === undefined) return clamp(this.base * 2 ** (seconds / s.doubleEverySeconds), s);
    const k = s.probeSeconds;
    if (seconds <= k) {
      // Back to the plateau along a concave cubic: fast at first, flat as it nears it.
      const c = 1 - s.decrease / s.plateau;
      return clamp(this.wMax * (1 + c * ((seconds - k) / k) ** 3), s);
    }
    // A probe period at the plateau without throttling: the table may have capacity to spare (other
    // traffic stopped, or DynamoDB raised it): look for it, doubling every `probeDoublingSeconds`.
    return clamp(this.wMax * 2 ** ((seconds - k) / s.probeDoublingSeconds), s);
  }

  get state(): PaceState {
    return { rate: this.rate, plateau: this.wMax, cuts: this.cuts };
  }

  private update(now: number): void {
    const dt = Math.max(0, now - this.lastUpdate);
    this.lastUpdate = now;
    // Growth counts only saturated time: time in which a write waited for units.
    if (this.blocked) this.grown += dt;
    this.blocked = false;
    const rate = this.rate;
    this.tokens = Math.min(this.tokens + (rate * dt) / 1000, rate * this.settings.burstSeconds);
  }

  /**
   * Takes `units` for a write at `now`: 0 when it may go now (the bucket may go into debt by one
   * write), else the milliseconds to wait before asking again.
   */
  take(units: number, now: number): number {
    this.update(now);
    if (this.tokens >= 0) {
      this.tokens -= units;
      return 0;
    }
    this.blocked = true;
    return Math.max(1, Math.ceil((-this.tokens / this.rate) * 1000));
  }

  /** A write met throttling at `now`: cut the rate (once per `reactSeconds`). Returns whether it cut. */
  throttled(now: number): boolean {
    this.update(now);
    if (now - this.lastCut < this.settings.reactSeconds * 1000) return false;
    const met = this.rate;
    this.lastCut = now;
    this.cuts++;
    this.wMax = Math.max(this.settings.floor, met * this.settings.plateau);
    this.grown = 0;
    // The refused units are owed again at the lower rate: no burst right after a cut.
    this.tokens = Math.min(this.tokens, 0);
    return true;
  }
}

function clamp(rate: number, s: Pick<PaceSettings, 'floor' | 'ceiling'>): number {
  return Math.min(s.ceiling, Math.max(s.floor, rate));
}

/** DynamoDB's answers that mean "the table (or an index, or the account) is at its capacity". */
const THROTTLING_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);

/** Whether an attempt's error is DynamoDB throttling (a cancelled transaction counts when a reason says so). */
export function isThrottling(error: unknown): boolean {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] } | undefined;
  if (!e?.name) return false;
  if (THROTTLING_ERRORS.has(e.name)) return true;
  return (
    e.name === 'TransactionCanceledException' &&
    (e.CancellationReasons ?? []).some(
      (r) => r.Code === 'ThrottlingError' || r.Code === 'ProvisionedThroughputExceeded',
    )
  );
}

/**
 * Settings per execution environment from the table-wide figures: `writeUnits` as
 * `<start>[,<ceiling>]` (IMPORT_WRITE_UNITS: what the import of one table starts at, and never
 * exceeds), shared by `environments` (IMPORT_CONCURRENCY: the import worker's maximum concurrency).
 * Defaults: a new on-demand table's 4,000 write units, no ceiling, 2 environments.
 */
export function paceSettingsFrom(writeUnits: string | undefined, environments: string | undefined): PaceSettings {
  const [startText, ceilingText] = (writeUnits ?? '').split(',').map((s) => s.trim());
  const positive = (text: string | undefined, name: string): number | undefined => {
    if (text === undefined || text === '') return undefined;
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0) throw new RangeError(`${name} must be a positive number, got '${text}'`);
    return n;
  };
  const tableStart = positive(startText, 'IMPORT_WRITE_UNITS (start)') ?? NEW_TABLE_WRITE_UNITS;
  const tableCeiling = positive(ceilingText, 'IMPORT_WRITE_UNITS (ceiling)') ?? Number.POSITIVE_INFINITY;
  const shares = Math.max(1, Math.round(positive(environments, 'IMPORT_CONCURRENCY') ?? 2));
  const ceiling = tableCeiling / shares;
  const start = Math.min(ceiling, (tableStart * PACE_CONTROL.plateau) / shares);
  return { ...PACE_CONTROL, start, floor: Math.min(start, Math.max(1, start / 20)), ceiling };
}

/** What a new on-demand table serves at once (Amazon DynamoDB Developer Guide, on-demand mode). */
const NEW_TABLE_WRITE_UNITS = 4_000;

/** The paces of one execution environment, one per table. */
export class TablePaces {
  private readonly paces = new Map<string, WritePace>();

  constructor(
    private readonly settings: PaceSettings,
    private readonly clock: () => number = Date.now,
  ) {}

  of(table: string): WritePace {
    let pace = this.paces.get(table);
    if (!pace) {
      pace = new WritePace(this.settings, this.clock());
      this.paces.set(table, pace);
    }
    return pace;
  }

  /** Waits until `units` may be written to `table` (see {@link WritePace.take}), within the caller's deadline. */
  async acquire(table: string, units: number, sleep: (ms: number) => Promise<void> = delay): Promise<void> {
    const pace = this.of(table);
    for (;;) {
      const now = this.clock();
      const wait = pace.take(units, now);
      if (wait === 0) return;
      const { deadline } = currentRetryPolicy();
      if (deadline !== undefined && now + wait > deadline) {
        throw new BackpressureError(
          'throttled',
          `the import is pacing its writes to ${table} at ${Math.round(pace.rate)} write units per second ` +
            'and this write could not start before the invocation ends',
        );
      }
      await sleep(wait);
    }
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The part of a DynamoDB client (or DocumentClient: they share it) the middleware goes into. */
type WithMiddleware = Pick<DynamoDBClient, 'middlewareStack'>;

const NAME = 'importPace';

/**
 * Paces every write attempt of `client` with `paces` and cuts a table's rate when an attempt is
 * throttled. In the `deserialize` step, inside the SDK's retries: each attempt is paced and seen.
 */
export function paceWrites(client: WithMiddleware, paces: TablePaces): () => void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const units = writeUnitsOf(context.commandName, args.input);
      for (const [table, n] of units) await paces.acquire(table, n);
      try {
        return await next(args);
      } catch (error) {
        const table = isThrottling(error) ? tableOf(args.input) : undefined;
        if (table !== undefined && paces.of(table).throttled(Date.now())) {
          logger.debug('the table throttled the import: its pace is cut', { table, ...paces.of(table).state });
        }
        throw error;
      }
    },
    { step: 'deserialize', priority: 'high', name: NAME, override: true },
  );
  return () => void client.middlewareStack.remove(NAME);
}
