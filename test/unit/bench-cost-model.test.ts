/**
 * The cost model's wall times: the import runs at the lower of what its invocations import and
 * the share of the base table's write throughput its pace keeps, on a new on-demand table growing
 * as AWS documents it and on a warmed one (bench measurement 5).
 */
import { describe, expect, it } from 'vitest';
import { type CostSample, costModel, onDemandImport, THROUGHPUT } from '../../bench/measurements/cost-model.js';

const phase = (write: number, table: number, read: number) => ({
  readUnitsPerUser: read,
  writeUnitsPerUser: write,
  tableWriteUnitsPerUser: table,
  indexWriteUnitsPerUser: {},
  local: {
    readUnitsPerUser: 0,
    writeUnitsPerUser: 0,
    tableWriteUnitsPerUser: 0,
    indexWriteUnitsPerUser: {},
    callsWithoutCapacityPerUser: 0,
  },
  failedCallsPerUser: 0,
  transactionsPerUser: 0,
});

/** The published figures (docs/performance.md, measurement 5): 18.84 WRU per user, 12.83 of them on the table, 130 ms per batch of 10. */
const published: CostSample = {
  users: 200,
  staging: phase(3.3344, 2.3244, 0.015),
  stagingCounters: { measuredWruPerUser: 0.32, at10kWruPerUser: 0.0256 },
  stagingDataKeys: { measuredWruPerUser: 0, at10kWruPerUser: 0 },
  worker: {
    ...phase(15.8, 10.8, 1.3),
    callsPerUser: {},
    actionsPerTransaction: [11, 43],
    handlerMsPerUser: 13,
    handlerMsPerInvocation: 130,
    handlerMsFastestFullBatch: 72,
    batchSize: 10,
  },
};

const OPTIONS = { users: 1_000_000, concurrency: 50, workerMemoryMb: 1769, utilization: 1 } as const;

describe('a million users', () => {
  const model = costModel(published, OPTIONS);

  it('writes 18.84 WRU per user, 12.83 of them to the base table', () => {
    expect(model.lines[0]?.usd).toBeCloseTo(11.775, 2);
    expect(model.tableWriteUnitsPerUser).toBeCloseTo(12.83, 2);
  });

  it('on a new on-demand table: 30 min at 4,000 WRU/s, then at the 8,000 the table doubled to', () => {
    const [fresh] = model.wall;
    // 30 min × 4,000 = 7.2 M units; the other 12.83 M − 7.2 M at 8,000 WRU/s: 703 s more.
    expect(fresh?.minutes).toBeCloseTo(30 + (1_000_000 * 12.8288 - 7_200_000) / 8_000 / 60, 1);
    expect(model.wallMinutes).toBe(fresh?.minutes);
    expect(fresh?.arithmetic).toContain('1 doubling, 8000 WRU/s at the end');
  });

  it('on a table warmed to the 40,000 WRU/s quota: ten times less, if the invocations keep up', () => {
    const warmed = model.wall[1];
    expect(warmed?.minutes).toBeCloseTo(1_000_000 / (THROUGHPUT.warmedWriteUnits / 12.8288) / 60, 1);
    expect(warmed?.arithmetic).toContain('(table-bound)');
    const few = costModel(published, { ...OPTIONS, concurrency: 2 });
    expect(few.wall[1]?.usersPerSecond).toBeCloseTo((2 * 10 * 1000) / 130, 1);
    expect(few.wall[1]?.arithmetic).toContain('(concurrency-bound)');
  });

  it("prices the warmed table at the ceiling the stack sets for it, the new table at the default's", () => {
    const split = costModel(published, { ...OPTIONS, concurrency: 2, warmConcurrency: 20 });
    expect(split.wall[1]?.concurrency).toBe(20);
    expect(split.wall[1]?.usersPerSecond).toBeCloseTo((20 * 10 * 1000) / 130, 1);
    expect(split.wall[1]?.arithmetic).toContain('20 invocations × 10 users / 130 ms');
    expect(split.wall[0]?.concurrency).toBe(2);
    const lambda = split.lines.find((l) => l.item.startsWith('Lambda compute'));
    expect(lambda?.arithmetic).toContain('2 invocations ×');
  });

  it('pays for every invocation waiting for the pace, not only for the work', () => {
    const fresh = model.wall[0]?.minutes ?? 0;
    const lambda = model.lines.find((l) => l.item.startsWith('Lambda compute'));
    expect(lambda?.usd).toBeCloseTo(OPTIONS.concurrency * fresh * 60 * (1769 / 1024) * 0.0000133334, 4);
  });
});

describe('the import on a new on-demand table', () => {
  it('at 80 % of the capacity: 30 min at 3,200, then at 80 % of twice that', () => {
    const { minutes, finalUnits } = onDemandImport({
      users: 1_000_000,
      tableWruPerUser: 12,
      utilization: 0.8,
      invocationsAllow: Number.POSITIVE_INFINITY,
    });
    expect(finalUnits).toBe(6_400);
    expect(minutes).toBeCloseTo(30 + (12_000_000 - 3_200 * 1800) / (0.8 * 6_400) / 60, 1);
  });

  it('never faster than its invocations, never above the quota', () => {
    expect(
      onDemandImport({ users: 36_000, tableWruPerUser: 10, utilization: 1, invocationsAllow: 100 }).minutes,
    ).toBeCloseTo(6, 5);
    const long = onDemandImport({
      users: 100_000_000,
      tableWruPerUser: 10,
      utilization: 1,
      invocationsAllow: Number.POSITIVE_INFINITY,
    });
    expect(long.finalUnits).toBe(THROUGHPUT.warmedWriteUnits);
  });
});

describe('the staged credentials’ data key items', () => {
  it('are priced as one per 10,000-user request, like the staging counters', () => {
    const base = costModel(published, OPTIONS);
    const withKeys = costModel(
      {
        ...published,
        staging: phase(3.3344 + 0.05, 2.3244 + 0.05, 0.015),
        stagingDataKeys: { measuredWruPerUser: 0.05, at10kWruPerUser: 0.0001 },
      },
      OPTIONS,
    );
    expect(withKeys.tableWriteUnitsPerUser - base.tableWriteUnitsPerUser).toBeCloseTo(0.0001, 6);
    expect((withKeys.lines[0]?.usd ?? 0) - (base.lines[0]?.usd ?? 0)).toBeCloseTo(0.0000625, 9);
  });
});
