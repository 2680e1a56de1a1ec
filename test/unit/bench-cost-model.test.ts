/**
 * The cost model's wall times: the import runs at the lower of what its invocations import and
 * what the base table's write throughput lets through (bench measurement 5).
 */
import { describe, expect, it } from 'vitest';
import { type CostSample, costModel, THROUGHPUT } from '../../bench/measurements/cost-model.js';

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
    batchSize: 10,
  },
};

describe('a million users', () => {
  const model = costModel(published, { users: 1_000_000, concurrency: 2, workerMemoryMb: 1769 });

  it('writes 18.84 WRU per user, 12.83 of them to the base table', () => {
    expect(model.lines[0]?.usd).toBeCloseTo(11.775, 2);
    expect(model.tableWriteUnitsPerUser).toBeCloseTo(12.83, 2);
  });

  it('takes the default concurrency on a new table: 2 × 10 users / 130 ms, under the table bound', () => {
    const [fresh] = model.wall;
    expect(fresh?.usersPerSecond).toBeCloseTo(153.8, 1);
    expect(fresh?.minutes).toBeCloseTo(108.3, 1);
    expect(model.wallMinutes).toBe(fresh?.minutes);
    expect(fresh?.arithmetic).toContain('(concurrency-bound)');
  });

  it('is held to 4,000 WRU/s by a new table however many invocations run', () => {
    const filled = model.wall[1];
    expect(filled?.concurrency).toBe(5);
    expect(filled?.usersPerSecond).toBeCloseTo(THROUGHPUT.newTableWriteUnits / 12.8288, 0);
    expect(filled?.minutes).toBeCloseTo(53.5, 1);
    expect(filled?.arithmetic).toContain('(table-bound)');
  });

  it('takes ten times less on a table warmed to the 40,000 WRU/s quota', () => {
    const warmed = model.wall[2];
    expect(warmed?.concurrency).toBe(41);
    expect(warmed?.minutes).toBeCloseTo(5.35, 1);
  });
});

describe('the staged credentials’ data key items', () => {
  it('are priced as one per 10,000-user request, like the staging counters', () => {
    const base = costModel(published, { users: 1_000_000, concurrency: 2, workerMemoryMb: 1769 });
    const withKeys = costModel(
      {
        ...published,
        staging: phase(3.3344 + 0.05, 2.3244 + 0.05, 0.015),
        stagingDataKeys: { measuredWruPerUser: 0.05, at10kWruPerUser: 0.0001 },
      },
      { users: 1_000_000, concurrency: 2, workerMemoryMb: 1769 },
    );
    expect(withKeys.tableWriteUnitsPerUser - base.tableWriteUnitsPerUser).toBeCloseTo(0.0001, 6);
    expect((withKeys.lines[0]?.usd ?? 0) - (base.lines[0]?.usd ?? 0)).toBeCloseTo(0.0000625, 9);
  });
});
