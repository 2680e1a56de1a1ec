import { defineConfig } from 'vitest/config';

/**
 * The e2e files that measure the core under load or against the clock (a machine burned on
 * purpose, a table at its write budget, a frozen database, a crash mid-import, an answer that must
 * come while a worker hashes): they run one at a time, after everything else, on a machine that is
 * doing nothing else (with TABLE_TO_ITSELF below). Every other file runs two at a time (on a 2-core machine vitest's default is
 * one: the whole suite would run file after file).
 */
const UNDER_LOAD = [
  'test/e2e/migrate-busy-machine.test.ts',
  'test/e2e/import-capacity.test.ts',
  'test/e2e/bulk-throttling.test.ts',
  'test/e2e/staging-budget.test.ts',
  'test/e2e/bulk-crash.test.ts',
  'test/e2e/database-outage.test.ts',
  'test/e2e/worker-pool.test.ts',
  'test/e2e/bulk-import-runtime.test.ts',
  'test/e2e/hashing-off-loop.test.ts',
  'test/e2e/hostile-import.test.ts',
  'test/e2e/sdk-password-hook-breaker.test.ts',
];

/**
 * Integration files that need the table to themselves: the reconciler re-sends every pending row
 * of the table (other files' rows included) and a 10,000-user request fills a whole request budget.
 * They run after the first group too, one at a time, with a DynamoDB Local and a queue server of
 * their own.
 */
const TABLE_TO_ITSELF = ['test/integration/bulk-pipeline.test.ts', 'test/integration/bulk-10k.test.ts'];

/** Files at once in the first group (unit, integration, infra, e2e); the files under load run alone. */
const WORKERS = 2;

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          globalSetup: ['test/helpers/command.ts'],
          maxWorkers: WORKERS,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: TABLE_TO_ITSELF,
          globalSetup: ['test/helpers/global-setup.ts'],
          setupFiles: ['test/helpers/env-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: WORKERS,
        },
      },
      {
        test: {
          name: 'integration-alone',
          include: TABLE_TO_ITSELF,
          globalSetup: ['test/helpers/global-setup.ts'],
          setupFiles: ['test/helpers/env-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          maxWorkers: WORKERS,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: UNDER_LOAD,
          globalSetup: ['test/helpers/command.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          maxWorkers: WORKERS,
        },
      },
      {
        test: {
          name: 'e2e-load',
          include: UNDER_LOAD,
          globalSetup: ['test/helpers/command.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
