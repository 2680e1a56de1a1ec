/**
 * The import's pace (functions/shared/import-pace.ts) and the local runtime's capacity model
 * (bin/local/capacity.ts), on a simulated clock: the pace settles just below a table's budget, cuts
 * once per burst of throttling, finds a budget that grew, stays within its floor and ceiling; the
 * model grows the way AWS documents on-demand tables growing. And the request units both use.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withRetryPolicy } from '#functions/shared/call-budget.js';
import { BackpressureError } from '#functions/shared/errors.js';
import {
  isThrottling,
  PACE_CONTROL,
  type PaceSettings,
  paceSettingsFrom,
  TablePaces,
  WritePace,
} from '#functions/shared/import-pace.js';
import { itemBytes, readUnitsOf, writeUnitsOf } from '#functions/shared/request-units.js';
import { parseWriteCapacity, TableCapacity } from '../../bin/local/capacity.js';
import { OptionsError, parseCommand } from '../../bin/local/options.js';

const settings = (over: Partial<PaceSettings> = {}): PaceSettings => ({
  ...PACE_CONTROL,
  start: 100,
  floor: 5,
  ceiling: Number.POSITIVE_INFINITY,
  ...over,
});

/**
 * Writes of `units` each, as fast as `pace` lets them, against `table` (a TableCapacity), for
 * `seconds` of simulated time in steps of 10 ms; returns the units the table took per second.
 */
function drive(pace: WritePace, table: TableCapacity, seconds: number, units = 50, from = 0): number[] {
  const perSecond = Array.from({ length: seconds }, () => 0);
  let next = from;
  for (let t = from; t < from + seconds * 1000; t += 10) {
    if (t < next) continue;
    const wait = pace.take(units, t);
    if (wait > 0) {
      next = t + wait;
      continue;
    }
    const second = Math.floor((t - from) / 1000);
    if (table.admit(units, t)) perSecond[second] = (perSecond[second] ?? 0) + units;
    else pace.throttled(t);
  }
  return perSecond;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('the pace against a table at its capacity', () => {
  it('settles near the budget: between 75 % and 100 % of it once it has found it', () => {
    const table = new TableCapacity({ initialUnits: 1000, doublingSeconds: 86_400, maxUnits: 1000 }, 0);
    const pace = new WritePace(settings(), 0);
    const used = drive(pace, table, 300);
    const settled = mean(used.slice(60));
    expect(settled).toBeGreaterThan(750);
    expect(settled).toBeLessThanOrEqual(1000);
    // It found the budget by being throttled, and then about once per probe period — not once a
    // second, as a pace that knew no plateau would.
    expect(pace.state.cuts).toBeGreaterThan(1);
    expect(pace.state.cuts).toBeLessThan((2 * 300) / PACE_CONTROL.probeSeconds);
  });

  it('follows a table that doubles its budget after a sustained peak', () => {
    const table = new TableCapacity({ initialUnits: 500, doublingSeconds: 120, maxUnits: 40_000 }, 0);
    const pace = new WritePace(settings(), 0);
    const used = drive(pace, table, 600);
    expect(mean(used.slice(60, 120))).toBeLessThanOrEqual(500);
    // Two doublings later the import writes well above the first budget.
    expect(mean(used.slice(420, 600))).toBeGreaterThan(1200);
    expect(table.budget(600_000)).toBeGreaterThanOrEqual(2000);
  });

  it('cuts once per burst of throttling, to 0.7 × the rate that met it', () => {
    const pace = new WritePace(settings({ start: 1000 }), 0);
    const before = pace.rate;
    expect(pace.throttled(1000)).toBe(true);
    expect(pace.rate).toBeCloseTo(before * PACE_CONTROL.decrease, 5);
    expect(pace.throttled(1500)).toBe(false);
    expect(pace.throttled(2100)).toBe(true);
    expect(pace.state.cuts).toBe(2);
  });

  it('does not grow while the environment is not using its rate', () => {
    const pace = new WritePace(settings({ start: 100 }), 0);
    // One small write every 5 s never waits: the rate stays where it started.
    for (let t = 0; t < 60_000; t += 5000) expect(pace.take(1, t)).toBe(0);
    expect(pace.rate).toBe(100);
  });

  it('stays within its floor and ceiling whatever happens', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 400 })), {
          maxLength: 300,
        }),
        (events) => {
          const s = settings({ start: 200, floor: 10, ceiling: 2000 });
          const pace = new WritePace(s, 0);
          let t = 0;
          for (const [throttle, dt, units] of events) {
            t += dt;
            if (throttle) pace.throttled(t);
            else pace.take(units, t);
            expect(pace.rate).toBeGreaterThanOrEqual(s.floor);
            expect(pace.rate).toBeLessThanOrEqual(s.ceiling);
          }
        },
      ),
    );
  });

  it('a write that cannot start before the invocation ends is backpressure, not a wait past it', async () => {
    let now = 0;
    const paces = new TablePaces(settings({ start: 10, floor: 10, ceiling: 10 }), () => now);
    await paces.acquire('t', 50, async () => undefined);
    const slept: number[] = [];
    const sleep = async (ms: number) => {
      slept.push(ms);
      now += ms;
    };
    // 50 units owed at 10 per second: the next write waits 5 s — fine with 10 s left…
    await withRetryPolicy({ deadline: 10_000 }, () => paces.acquire('t', 1, sleep));
    expect(slept.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(4000);
    // …refused with 1 s left.
    await paces.acquire('t', 100, sleep);
    await expect(withRetryPolicy({ deadline: now + 1000 }, () => paces.acquire('t', 1, sleep))).rejects.toThrow(
      BackpressureError,
    );
  });
});

describe('the pace from the environment', () => {
  it("shares the table's start and ceiling among the execution environments", () => {
    const s = paceSettingsFrom('4000,40000', '20');
    expect(s.start).toBeCloseTo((4000 * PACE_CONTROL.plateau) / 20);
    expect(s.ceiling).toBe(2000);
    expect(s.floor).toBeGreaterThan(0);
    expect(paceSettingsFrom(undefined, undefined)).toMatchObject({ start: 1800, ceiling: Number.POSITIVE_INFINITY });
    expect(() => paceSettingsFrom('lots', '2')).toThrow(/IMPORT_WRITE_UNITS \(start\) must be a positive number/);
  });

  it('knows DynamoDB throttling when it sees it, and nothing else', () => {
    expect(isThrottling(Object.assign(new Error('x'), { name: 'ProvisionedThroughputExceededException' }))).toBe(true);
    expect(isThrottling(Object.assign(new Error('x'), { name: 'ThrottlingException' }))).toBe(true);
    const cancelled = (codes: string[]) =>
      Object.assign(new Error('x'), {
        name: 'TransactionCanceledException',
        CancellationReasons: codes.map((Code) => ({ Code })),
      });
    expect(isThrottling(cancelled(['None', 'ThrottlingError']))).toBe(true);
    expect(isThrottling(cancelled(['ConditionalCheckFailed', 'None']))).toBe(false);
    expect(isThrottling(Object.assign(new Error('x'), { name: 'ConditionalCheckFailedException' }))).toBe(false);
    expect(isThrottling(undefined)).toBe(false);
  });
});

describe('an on-demand table (the local capacity-limited mode)', () => {
  it('serves its initial budget, refuses beyond it, and doubles after a sustained peak', () => {
    const table = new TableCapacity({ initialUnits: 100, doublingSeconds: 60, maxUnits: 40_000 }, 0);
    let admitted = 0;
    for (let t = 0; t < 10_000; t += 10) if (table.admit(10, t)) admitted += 10;
    // 10 s at 100 units per second, and the bucket's first second.
    expect(admitted).toBeLessThanOrEqual(1100);
    expect(admitted).toBeGreaterThanOrEqual(1000);
    expect(table.takeTotals().throttled).toBeGreaterThan(0);
    expect(table.budget(59_000)).toBe(100);
    expect(table.budget(70_000)).toBe(200);
  });

  it('never passes the per-table quota, and a request larger than the bucket waits for a full one', () => {
    const table = new TableCapacity({ initialUnits: 30_000, doublingSeconds: 1, maxUnits: 40_000 }, 0);
    for (let t = 0; t < 5000; t += 1) table.admit(100, t);
    expect(table.budget(20_000)).toBe(40_000);
    const small = new TableCapacity({ initialUnits: 50, doublingSeconds: 1800, maxUnits: 40_000 }, 0);
    expect(small.admit(200, 0)).toBe(true);
    expect(small.admit(1, 100)).toBe(false);
    expect(small.admit(200, 6000)).toBe(true);
  });

  it('reads --write-capacity', () => {
    expect(parseWriteCapacity('4000')).toEqual({ initialUnits: 4000, doublingSeconds: 1800, maxUnits: 40_000 });
    expect(parseWriteCapacity('300,60')).toEqual({ initialUnits: 300, doublingSeconds: 60, maxUnits: 40_000 });
    const parsed = parseCommand(['--write-capacity=500,30'], {}, '/work');
    expect(parsed.help === false && parsed.options.writeCapacity?.initialUnits).toBe(500);
    for (const bad of ['', 'x', '5', '300,0', '300,60,1', '-4']) {
      expect(() => parseCommand([`--write-capacity=${bad}`], {}, '/work')).toThrow(OptionsError);
    }
    expect(() =>
      parseCommand(['--write-capacity=4000'], { DYNAMODB_ENDPOINT: 'https://dynamodb.eu-west-1.amazonaws.com' }, '/w'),
    ).toThrow(/a table on AWS has its own capacity/);
  });
});

describe('request units (AWS billing rules, from the request)', () => {
  const item = (bytes: number) => ({ PK: { S: 'k' }, blob: { S: 'x'.repeat(bytes) } });

  it('prices writes per started KB, twice in a transaction, by table', () => {
    expect(writeUnitsOf('PutItemCommand', { TableName: 't', Item: item(100) })).toEqual(new Map([['t', 1]]));
    expect(writeUnitsOf('PutItem', { TableName: 't', Item: item(1500) })).toEqual(new Map([['t', 2]]));
    expect(writeUnitsOf('UpdateItemCommand', { TableName: 't' })).toEqual(new Map([['t', 1]]));
    const tx = {
      TransactItems: [
        { Put: { TableName: 'a', Item: item(2000) } },
        { Update: { TableName: 'a' } },
        { ConditionCheck: { TableName: 'b' } },
        { Delete: { TableName: 'a' } },
      ],
    };
    expect(writeUnitsOf('TransactWriteItemsCommand', tx)).toEqual(
      new Map([
        ['a', 4 + 2 + 2],
        ['b', 2],
      ]),
    );
    expect(writeUnitsOf('GetItemCommand', { TableName: 't' }).size).toBe(0);
    expect(
      readUnitsOf('BatchGetItemCommand', { RequestItems: { t: { Keys: [{}, {}], ConsistentRead: true } } }),
    ).toEqual(new Map([['t', 2]]));
  });

  it('sizes items as DynamoDB does', () => {
    expect(itemBytes({ ab: { S: 'héllo' }, n: { N: '-12.50' }, ok: { BOOL: true } })).toBe(2 + 6 + 1 + 4 + 2 + 1);
    expect(itemBytes({ m: { M: { k: { S: 'v' } } }, l: { L: [{ NULL: true }] } })).toBe(
      1 + (3 + 1 + 1 + 1) + 1 + (3 + 1 + 1),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), (text) => {
        const units = writeUnitsOf('PutItem', { TableName: 't', Item: { PK: { S: text } } }).get('t') ?? 0;
        expect(units).toBe(Math.max(1, Math.ceil((2 + Buffer.byteLength(text)) / 1024)));
      }),
    );
  });
});
