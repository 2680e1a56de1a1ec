/**
 * `npm run bench [-- --quick] [-- --persisted] [-- --only=2,6] [-- --runs=N]`: the benchmark
 * harness (not part of `npm test`). `--only` picks measurements (1 and 2 run together; 5, the cost model, always runs:
 * it records the write plan the baseline of 2 replays).
 *
 * System under test: the real local runtime as a child process (what `npm start` runs: DynamoDB
 * Local, fauxqs, the Lambda-like pollers, the same handlers), driven over HTTP. Baselines run in
 * this process against the SAME DynamoDB Local, in the same run, interleaved run by run with the
 * measured system so drift hits both. The cost model loads the handlers in this process (with a
 * capacity-recording middleware on its DocumentClient) against the same DynamoDB Local.
 *
 * Measurements: 1 staging latency (and the dry run of the same request), 2 import throughput vs bare transactions (2b: the same import
 * into an app on a table of its own, vs the base table), 3 import throughput with plain-text
 * passwords vs bare hashing on all cores, 4 sign-in vs bare verify, 5 cost model (5b: the same
 * recording with the app on a table of its own), 6 peak RSS of the runtime (node + DynamoDB Local)
 * per tenth of a large import, 7 verify time at each hash cost bound, 8 bundle size and import
 * time vs a document-client-only bundle, 9 the migration command (conversion speed and memory;
 * `migrate` vs posting the same users directly), 10 sign-in with a session and refresh, 11 failed sign-ins' timing (unknown email vs
 * wrong password vs legacy digest vs Argon2 with an empty password), 12 first sign-in of a user pending the
 * password-migration hook vs a bare call of the reference legacy endpoint, and vs the same user's
 * usual sign-in right after it: (first − one hash) ÷ bare is everything the core does around the hook
 * and the hash (its DynamoDB round trips, which every sign-in pays, dominate it locally); (first −
 * usual) ÷ bare is what the hook adds to a sign-in — the hook call plus the conditional write.
 * 14: staging throughput of the command's adaptive requests (`--batch-size auto`) vs fixed 10,000-user
 * requests, and the largest single request the core stages inside its budget on this machine.
 * 15: sign-in with a passkey vs sign-in with a password, each as a ratio to `/hello` of the same run.
 */
import { WORKERS } from '#functions/workers.js';
import { importConcurrencyFor } from '../lib/capacity.js';
import { loadInProcess } from './lib/in-process.js';
import { machineInfo, markdown, type Row, summaryRows, writeResults } from './lib/report.js';
import { startRuntime } from './lib/runtime.js';
import { measure, type RunPlan, round, summarise } from './lib/stats.js';
import { cheapBcryptHash } from './lib/users.js';
import { bareClient, runBareBatchImport } from './measurements/bare-batches.js';
import { type BundleResults, bundleNotes, measureBundles } from './measurements/bundles.js';
import { costModel, REHEARSED_UTILIZATION, recordImport, THROUGHPUT, unitNotes } from './measurements/cost-model.js';
import { hashBoundsRun } from './measurements/hash-bounds.js';
import { capacityRun, prepareCapacityRun } from './measurements/import-capacity.js';
import { memoryRun } from './measurements/memory.js';
import { commandVsDirect, conversionRun } from './measurements/migrate-command.js';
import { passkeysRun, preparePasskeys, recordPasskeyUnits } from './measurements/passkeys.js';
import { hookRun, prepareHook } from './measurements/password-hook.js';
import { hashingPool, plainImportRun, runtimeBcryptCost } from './measurements/plain-import.js';
import { prepareSessions, recordSessionUnits, sessionsRun } from './measurements/sessions.js';
import { hashFormats, prepareSignIn, signInRun } from './measurements/signin.js';
import { prepareTiming, timingRun } from './measurements/signin-timing.js';
import { recordUpgrade, upgradeLatencyRun } from './measurements/signin-upgrade.js';
import { stageAndImport } from './measurements/staging-import.js';
import { adaptiveVsFixed, largestInBudget } from './measurements/staging-sizes.js';

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const onlyArg = process.argv.slice(2).find((a) => a.startsWith('--only='));
const only = onlyArg ? new Set(onlyArg.slice('--only='.length).split(',')) : undefined;
/** Whether measurement `n` runs (`--only=1` and `--only=2` both mean the staging + import pair). */
const want = (n: 1 | 3 | 4 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15) =>
  !only || only.has(String(n)) || (n === 1 && only.has('2'));
const SIZES = quick
  ? {
      stageUsers: 200,
      costUsers: 32,
      signInRequests: 20,
      timingRounds: 30,
      timingArgon2: { memorySize: 1024, iterations: 1 },
      plan: { warmup: 1, runs: 3 },
      plainUsers: 40,
      // Quick mode lowers the runtime's bcrypt cost (the baseline uses the same, read back below).
      runtimeEnv: { BCRYPT_LOG_ROUNDS: '8' },
      memory: { chunks: 2, chunkSize: 60, plan: { warmup: 0, runs: 3 } },
      migrate: { convertRecords: 20_000, users: 1_000, batch: 250, plan: { warmup: 0, runs: 3 } },
      // 13: a 2,000-user import at 300 WRU/s doubled after 60 s of a sustained peak.
      capacity: { users: 2_000, chunk: 500, signInUsers: 5, idleSignIns: 60, units: 300, doubling: 60, runs: 1 },
      sizes: { users: 10_000, fit: [10_000, 5_000, 2_000], plan: { warmup: 0, runs: 2 } },
    }
  : {
      stageUsers: 10_000,
      costUsers: 256,
      signInRequests: 200,
      timingRounds: 100,
      timingArgon2: { memorySize: 19456, iterations: 2 },
      plan: { warmup: 1, runs: 3 },
      plainUsers: 1_000,
      runtimeEnv: {},
      memory: { chunks: 10, chunkSize: 10_000, plan: { warmup: 0, runs: 3 } },
      migrate: { convertRecords: 1_000_000, users: 100_000, batch: 10_000, plan: { warmup: 0, runs: 3 } },
      // 13: a 20,000-user import at 400 WRU/s doubled after 5 min of a sustained peak (a new
      // on-demand table's 4,000 and 30 min, at a tenth: what one shared 2-core machine can drive).
      capacity: { users: 20_000, chunk: 2_000, signInUsers: 10, idleSignIns: 300, units: 400, doubling: 300, runs: 1 },
      sizes: {
        users: 30_000,
        fit: [10_000, 9_000, 8_000, 7_000, 6_000, 5_000, 4_000, 3_000, 2_000, 1_000],
        plan: { warmup: 0, runs: 3 },
      },
    };
const runsArg = process.argv.slice(2).find((a) => a.startsWith('--runs='));
/** `--runs=N` overrides the measured runs of every measurement (figures for publishing need ≥ 3). */
const runs = runsArg ? Math.max(1, Number(runsArg.slice('--runs='.length)) || 1) : undefined;
const plan: RunPlan = runs ? { ...SIZES.plan, runs } : SIZES.plan;
const memoryPlan: RunPlan = runs ? { ...SIZES.memory.plan, runs } : SIZES.memory.plan;
const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const machine = machineInfo();
  const started = performance.now();
  const inMemory = !args.has('--persisted');
  log(
    `bench (${quick ? 'quick' : 'full'}; DynamoDB Local ${inMemory ? 'in memory' : 'persisted'}) on ${machine.cpuModel} ×${machine.cores}`,
  );
  const runtime = await startRuntime({ inMemory, env: SIZES.runtimeEnv });
  log(`runtime up in ${round((performance.now() - started) / 1000, 1)} s (DynamoDB Local ${runtime.dynamodbEndpoint})`);
  const importWorker = WORKERS.find((w) => w.id === 'import-worker');
  if (importWorker?.source.kind !== 'import-queue') throw new Error('no import worker');
  const batchSize = importWorker.source.batchSize;
  const concurrency = runtime.workerConcurrency * batchSize;
  const rows: Row[] = [];
  const results: Record<string, unknown> = {};
  try {
    // 5. Cost model (also records the write plan the baseline of 2 replays).
    log('5. cost model (in-process recording of the real staging + import worker)');
    const inProcess = await loadInProcess(runtime.dynamodbEndpoint, runtime.tableName);
    const recorded = await recordImport(runtime, inProcess, SIZES.costUsers, batchSize);
    // The pace's use of a table: measurement 13's when it runs (the model is priced again then).
    let utilization: number = REHEARSED_UTILIZATION;
    const ceiling = importWorker.source.maxConcurrency;
    // What the stack sets with `-c warmWriteUnits=40000` (lib/stage.ts): the warmed scenario's ceiling.
    const warmCeiling = Math.max(ceiling, importConcurrencyFor(THROUGHPUT.warmedWriteUnits, batchSize));
    const modelOf = (sample: typeof recorded.sample) =>
      costModel(sample, {
        users: 1_000_000,
        concurrency: ceiling,
        warmConcurrency: warmCeiling,
        workerMemoryMb: importWorker.memoryMb,
        utilization,
      });
    let model = modelOf(recorded.sample);
    results.costModel = { sample: recorded.sample, model, breakdown: recorded.breakdown };
    log(`  per user: ${JSON.stringify(recorded.sample)}`);
    for (const line of unitNotes(recorded.sample)) log(`  ${line}`);
    log(`  1M users: $${round(model.totalUsd)} in ${round(model.wallMinutes, 1)} min (${model.wallArithmetic})`);

    // 5b. The same recording with the app on a table of its own (`dynamodb_table_name`): the same
    // items and calls, only in another table, so the same units are expected.
    log('5b. cost model, the app on a table of its own');
    const own = await recordImport(runtime, inProcess, SIZES.costUsers, batchSize, { ownTable: true });
    const ownModel = modelOf(own.sample);
    // Per user as the model prices it: staging counters as a 10,000-user request pays them (the
    // small request's counter share depends on which shards its random ids hit).
    const perUser = (s: typeof own.sample) => {
      const counters = s.stagingCounters.measuredWruPerUser - s.stagingCounters.at10kWruPerUser;
      return {
        wru: s.staging.writeUnitsPerUser - counters + s.worker.writeUnitsPerUser,
        tableWru: s.staging.tableWriteUnitsPerUser - counters + s.worker.tableWriteUnitsPerUser,
        workerWru: s.worker.writeUnitsPerUser,
        rru: s.staging.readUnitsPerUser + s.worker.readUnitsPerUser,
        transactions: s.worker.transactionsPerUser,
      };
    };
    const [ownUnits, baseUnits] = [perUser(own.sample), perUser(recorded.sample)];
    results.costModelOwnTable = { sample: own.sample, model: ownModel, perUser: ownUnits, basePerUser: baseUnits };
    log(`  per user, own table: ${JSON.stringify(ownUnits)}`);
    log(`  per user, base table: ${JSON.stringify(baseUnits)}`);
    log(`  1M users on its own table: $${round(ownModel.totalUsd)} (base table: $${round(model.totalUsd)})`);
    const single = (x: number) => ({ median: x, min: x, max: x, samples: [x] });
    for (const [metric, unit, ownValue, baseValue, target] of [
      ['write units per user (10,000 per staging request)', 'WRU', ownUnits.wru, baseUnits.wru, '= 1'],
      ['table write units per user', 'WRU', ownUnits.tableWru, baseUnits.tableWru, '= 1'],
      ['read units per user', 'RRU', ownUnits.rru, baseUnits.rru, '= 1'],
      ['1M users (Lambda time as measured)', 'USD', ownModel.totalUsd, model.totalUsd, '≈ 1 (timing noise)'],
    ] as const) {
      const measurement = '5b. Cost model, app on its own table';
      rows.push(
        { measurement, metric, unit, summary: single(ownValue) as never },
        {
          measurement,
          metric: `${metric}, own ÷ base`,
          unit: '×',
          summary: single(ownValue / baseValue) as never,
          target,
        },
      );
    }

    // 1 + 2. Staging latency and end-to-end import (hashes given) vs bare transactions.
    if (want(1)) await stagingAndImport();
    async function stagingAndImport() {
      log(`1+2. stage ${SIZES.stageUsers} users → count 0, vs bare transactions at ${concurrency} in flight`);
      const hash = await cheapBcryptHash('bench-password');
      const client = bareClient(runtime.dynamodbEndpoint);
      const importRuns = await measure(
        'import',
        plan,
        async () => {
          const credential = { kind: 'hash', passwordHash: hash, hashingAlgorithm: 'BCRYPT' } as const;
          const app = await stageAndImport(runtime, SIZES.stageUsers, credential);
          // The same import into an app on a table of its own, in the same run.
          const own = await stageAndImport(runtime, SIZES.stageUsers, credential, { ownTable: true });
          const bare = await runBareBatchImport(client, recorded.plan, SIZES.stageUsers, runtime.workerConcurrency);
          return {
            stageMs: app.stageMs,
            dryRunMs: app.dryRunMs,
            dryRunConflictsMs: app.dryRunConflictsMs,
            appUsersPerSecond: app.usersPerSecond,
            bareUsersPerSecond: bare.usersPerSecond,
            ratio: app.usersPerSecond / bare.usersPerSecond,
            ownTableStageMs: own.stageMs,
            ownTableUsersPerSecond: own.usersPerSecond,
            ownTableRatio: own.usersPerSecond / app.usersPerSecond,
          };
        },
        log,
      );
      results.stagingAndImport = { users: SIZES.stageUsers, concurrency, runs: importRuns };
      rows.push(
        ...summaryRows(`1. Staging ${SIZES.stageUsers} users`, importRuns, [['POST latency', 'ms', 'stageMs']]),
        ...summaryRows(`1. Dry run of ${SIZES.stageUsers} users`, importRuns, [
          ['POST latency, no conflict', 'ms', 'dryRunMs'],
          ['POST latency, every user conflicts', 'ms', 'dryRunConflictsMs'],
        ]),
        ...summaryRows('2. Import, hashes given', importRuns, [
          ['end to end', 'users/s', 'appUsersPerSecond'],
          ['bare transactions', 'users/s', 'bareUsersPerSecond'],
          ['ratio', '×', 'ratio', '≥ 0.7'],
        ]),
        ...summaryRows('2b. Import, hashes given, app on its own table', importRuns, [
          ['end to end', 'users/s', 'ownTableUsersPerSecond'],
          ['own ÷ base table', '×', 'ownTableRatio', '≈ 1 (same writes)'],
        ]),
      );
    }

    // 3. Import with plain-text passwords vs bare hashing (same library and cost, all cores).
    if (want(3)) await plainImport();
    async function plainImport() {
      const cost = await runtimeBcryptCost({ API_KEYS: undefined, LOG_LEVEL: 'warn', ...SIZES.runtimeEnv });
      const pool = hashingPool();
      log(
        `3. stage ${SIZES.plainUsers} plain-text users (BCRYPT cost ${cost}) → count 0, vs bare hashing ×${pool.workers}`,
      );
      try {
        const plainRuns = await measure(
          'plain',
          plan,
          () => plainImportRun(runtime, pool, SIZES.plainUsers, cost),
          log,
        );
        results.plainTextImport = {
          users: SIZES.plainUsers,
          bcryptCost: cost,
          hashingWorkers: pool.workers,
          runs: plainRuns,
        };
        rows.push(
          ...summaryRows(`3. Import, plain-text (bcrypt ${cost})`, plainRuns, [
            ['end to end', 'users/s', 'appUsersPerSecond'],
            [`bare hashing ×${pool.workers}`, 'hashes/s', 'bareHashesPerSecond'],
            ['ratio', '×', 'ratio', '≥ 0.8'],
          ]),
        );
      } finally {
        await pool.close();
      }
    }

    // 10. Sessions: sign-in + session creation vs sign-in alone, refresh vs /hello; units per step.
    if (want(10)) {
      log('10. sessions: sign-in with a session, refresh');
      const target = await prepareSessions(runtime);
      const sessionRuns = await measure(
        'sessions',
        plan,
        () => sessionsRun(runtime, target, SIZES.signInRequests),
        log,
      );
      for (const [metric, unit] of [
        ['signInP50', 'ms'],
        ['signInP99', 'ms'],
        ['signInWithSessionP50', 'ms'],
        ['signInWithSessionP99', 'ms'],
        ['sessionRatioP50', '×'],
        ['refreshP50', 'ms'],
        ['refreshP99', 'ms'],
        ['helloP50', 'ms'],
        ['refreshRatioP50', '×'],
      ] as const) {
        rows.push({ measurement: '10. Sessions', metric, unit, summary: sessionRuns[metric] as never });
      }
      const sessionUnits = await recordSessionUnits(runtime, inProcess);
      for (const [name, u] of Object.entries(sessionUnits)) {
        log(
          `  ${name}: ${u.writeUnits} WRU (${u.tableWriteUnits} table + ${u.indexWriteUnits} index), ${u.readUnits} RRU; ${u.calls.join(', ')}`,
        );
      }
      results.sessions = { requestsPerRun: SIZES.signInRequests, runs: sessionRuns, units: sessionUnits };
    }

    // 15. Passkeys: a passkey sign-in and a password sign-in, each vs /hello; units of a passkey sign-in.
    if (want(15)) {
      log('15. passkeys: sign-in with a passkey vs with a password, each vs /hello');
      const target = await preparePasskeys(runtime);
      const passkeyRuns = await measure(
        'passkeys',
        plan,
        () => passkeysRun(runtime, target, SIZES.signInRequests),
        log,
      );
      const measurement = '15. Passkey sign-in';
      rows.push(
        ...summaryRows(measurement, passkeyRuns, [
          ['passkey sign-in p50', 'ms', 'passkeyP50'],
          ['passkey sign-in p99', 'ms', 'passkeyP99'],
          ['password sign-in p50', 'ms', 'passwordP50'],
          ['password sign-in p99', 'ms', 'passwordP99'],
          ['`/hello` p50', 'ms', 'helloP50'],
          ['passkey sign-in ÷ `/hello`, p50', '×', 'passkeyRatioP50'],
          ['password sign-in ÷ `/hello`, p50', '×', 'passwordRatioP50'],
          ['passkey ÷ password sign-in, p50', '×', 'passkeyToPasswordP50'],
        ]),
      );
      const passkeyUnits = await recordPasskeyUnits(runtime, inProcess);
      for (const [name, u] of Object.entries(passkeyUnits)) {
        log(
          `  ${name}: ${u.writeUnits} WRU (${u.tableWriteUnits} table + ${u.indexWriteUnits} index), ${u.readUnits} RRU; ${u.calls.join(', ')}`,
        );
      }
      results.passkeys = { requestsPerRun: SIZES.signInRequests, runs: passkeyRuns, units: passkeyUnits };
    }

    // 4. Sign-in per hash format vs bare verify.
    if (want(4)) await signInLatency();
    async function signInLatency() {
      log('4. sign-in vs bare verify');
      const signIn: Record<string, unknown> = {};
      for (const format of await hashFormats()) {
        const target = await prepareSignIn(runtime, format);
        const runs = await measure(
          format.name,
          plan,
          () => signInRun(runtime, format, target, SIZES.signInRequests),
          log,
        );
        signIn[format.name] = { requestsPerRun: SIZES.signInRequests, runs };
        for (const [metric, unit] of [
          ['signInP50', 'ms'],
          ['signInP99', 'ms'],
          ['verifyP50', 'ms'],
          ['verifyP99', 'ms'],
          ['ratioP50', '×'],
        ] as const) {
          rows.push({ measurement: `4. Sign-in ${format.name}`, metric, unit, summary: runs[metric] as never });
        }
      }
      results.signIn = signIn;

      log('4. upgrade of a legacy hash on sign-in');
      const upgradeRuns = await measure(
        'first sign-in with / without the upgrade',
        plan,
        () => upgradeLatencyRun(runtime, SIZES.signInRequests),
        log,
      );
      const upgradeUnits = await recordUpgrade(runtime, inProcess);
      log(`  units: ${JSON.stringify(upgradeUnits)}`);
      results.signInUpgrade = { requestsPerRun: SIZES.signInRequests, runs: upgradeRuns, units: upgradeUnits };
      const measurement = '4. Upgrade on sign-in (salted SHA-256 → bcrypt)';
      for (const [metric, unit] of [
        ['upgradeP50', 'ms'],
        ['upgradeP99', 'ms'],
        ['noUpgradeP50', 'ms'],
        ['noUpgradeP99', 'ms'],
        ['extraP50', 'ms'],
        ['upgradedNextP50', 'ms'],
        ['upgradedNextP99', 'ms'],
      ] as const) {
        rows.push({ measurement, metric, unit, summary: upgradeRuns[metric] as never });
      }
      rows.push(
        {
          measurement,
          metric: 'write units per upgrade',
          unit: 'WRU',
          summary: summarise([upgradeUnits.upgrade.writeUnits]),
        },
        {
          measurement,
          metric: 'write units, next sign-in',
          unit: 'WRU',
          summary: summarise([upgradeUnits.next.writeUnits]),
        },
      );
    }

    // 12. First sign-in of a user pending the password-migration hook vs a bare call of the endpoint
    // and vs the same user's usual sign-in right after it.
    if (want(12)) await passwordHook();
    async function passwordHook() {
      const count = SIZES.signInRequests;
      log(
        `12. password-migration hook: ${count} first sign-ins per run vs bare calls of the endpoint and usual sign-ins`,
      );
      const cost = await runtimeBcryptCost(SIZES.runtimeEnv);
      const bench = await prepareHook(runtime, count, plan.warmup + plan.runs);
      let run = 0;
      try {
        const hookRuns = await measure('hook', plan, () => hookRun(runtime, bench, run++, count, cost), log);
        results.passwordHook = { requestsPerRun: count, bcryptCost: cost, runs: hookRuns };
        rows.push(
          ...summaryRows('12. Password-migration hook, first sign-in', hookRuns, [
            ['sign-in p50', 'ms', 'pendingP50'],
            ['sign-in p99', 'ms', 'pendingP99'],
            ['usual sign-in p50', 'ms', 'usualP50'],
            ['usual sign-in p99', 'ms', 'usualP99'],
            ['bare endpoint call p50', 'ms', 'bareP50'],
            ['bare endpoint call p99', 'ms', 'bareP99'],
            ['one hash at the app cost, p50', 'ms', 'hashP50'],
            ['sign-in ÷ bare, p50', '×', 'ratioP50'],
            ['sign-in ÷ bare, p99', '×', 'ratioP99'],
            ['(sign-in − hash) ÷ bare, p50', '×', 'overheadRatioP50', '≤ 1.2 plus one hash'],
            ['(first sign-in − usual sign-in) ÷ bare call, p50', '×', 'hookAddsRatioP50'],
          ]),
        );
      } finally {
        await bench.close();
      }
    }

    // 10. Failed sign-ins: unknown email vs wrong password vs legacy digest vs Argon2 empty password.
    if (want(11)) await signInTiming();
    async function signInTiming() {
      log(`11. failed sign-in timing (${SIZES.timingRounds} rounds of the four kinds, over HTTP)`);
      const target = await prepareTiming(runtime, SIZES.timingArgon2);
      const timingRuns = await measure('timing', plan, () => timingRun(runtime, target, SIZES.timingRounds), log);
      results.signInTiming = { rounds: SIZES.timingRounds, argon2: SIZES.timingArgon2, runs: timingRuns };
      rows.push(
        ...summaryRows('11. Failed sign-in timing', timingRuns, [
          ['unknown email, p50', 'ms', 'unknownP50'],
          ['wrong password, app algorithm user, p50', 'ms', 'appAlgorithmP50'],
          ['wrong password, salted SHA-256 user, p50', 'ms', 'legacyDigestP50'],
          ['empty password, Argon2 user, p50', 'ms', 'argon2EmptyP50'],
          ['app algorithm ÷ unknown email', '×', 'appAlgorithmRatio', '0.8–1.25'],
          ['salted SHA-256 ÷ unknown email', '×', 'legacyDigestRatio', '0.8–1.25'],
          ['Argon2 empty password ÷ unknown email', '×', 'argon2EmptyRatio', '0.8–1.25'],
        ]),
      );
    }

    // 13. The import on a table with an on-demand table's capacity (its own runtime, in the
    // capacity-limited mode), and live sign-ins of three apps while it runs against the same idle.
    if (want(13)) await importCapacity();
    async function importCapacity() {
      const c = SIZES.capacity;
      log(
        `13. ${c.users} users into a table of ${c.units} WRU/s (doubled ${c.doubling} s after a sustained peak), sign-ins meanwhile`,
      );
      const limited = await startRuntime({
        inMemory,
        env: SIZES.runtimeEnv,
        args: [`--write-capacity=${c.units},${c.doubling}`],
      });
      try {
        const hash = (await hashFormats())[0]?.hash as string;
        const capacityRuns = await measure(
          'capacity',
          { warmup: 0, runs: runs ?? c.runs },
          async () =>
            capacityRun(limited, await prepareCapacityRun(limited, c.signInUsers, hash), {
              users: c.users,
              chunk: c.chunk,
              idleSignIns: c.idleSignIns,
              hash,
              budget: c.units,
            }),
          log,
        );
        results.importCapacity = { ...c, runs: capacityRuns };
        rows.push(
          ...summaryRows(
            `13. Import of ${c.users} users, table at ${c.units} WRU/s doubling after ${c.doubling} s`,
            capacityRuns,
            [
              ['throughput', 'users/s', 'usersPerSecond'],
              ['table use ÷ budget (first budget, settled)', '×', 'utilization', 'near 1'],
              ['highest 10-s window ÷ budget', '×', 'maxUsedOverBudget', '≤ 1.1'],
              ['budget at the end', 'WRU/s', 'finalBudget'],
              ['FAILED users', 'users', 'failed', '0'],
            ],
          ),
        );
        for (const [label, name, target] of [
          ['sameApp', 'the same app', '—'],
          ['sameTable', 'another app on the same table', '≤ 2 at p99'],
          ['ownTable', 'another app on its own table', '≤ 1.5 at p99'],
        ] as const) {
          rows.push(
            ...summaryRows(`13. Sign-in (bcrypt 10) of ${name} during the import`, capacityRuns, [
              ['idle p50', 'ms', `${label}IdleP50`],
              ['idle p99', 'ms', `${label}IdleP99`],
              ['importing p50', 'ms', `${label}ImportP50`],
              ['importing p99', 'ms', `${label}ImportP99`],
              ['while staging p99', 'ms', `${label}StagingP99`],
              ['importing ÷ idle, p50', '×', `${label}RatioP50`],
              ['importing ÷ idle, p99', '×', `${label}RatioP99`, target],
            ]),
          );
        }
        const measured = capacityRuns.utilization?.median;
        if (measured !== undefined && Number.isFinite(measured)) {
          utilization = measured;
          model = modelOf(recorded.sample);
          results.costModel = { sample: recorded.sample, model, breakdown: recorded.breakdown };
          log(
            `  1M users with the measured utilization ${round(measured)}: $${round(model.totalUsd)}; ${model.wallArithmetic}`,
          );
        }
      } finally {
        await limited.stop();
      }
    }

    // 7. Verify time at each hash cost bound (in this process, bench/measurements/hash-bounds.ts).
    if (want(7)) {
      log('7. verify at each hash cost bound');
      const bounds = await hashBoundsRun(plan, log);
      results.hashBounds = { cases: bounds.cases, runs: bounds.runs };
      rows.push(...bounds.rows);
    }

    // 6. Peak RSS of the runtime (node + DynamoDB Local) per tenth of a large import, on a runtime
    // of its own that persists its data as `npm start` does (an in-memory DynamoDB Local holds
    // every user in its heap, which grows with the data by design).
    if (want(6)) await memory();
    async function memory() {
      const { chunks, chunkSize } = SIZES.memory;
      const memoryUsers = chunks * chunkSize;
      log(`6. RSS during an import of ${chunks} × ${chunkSize} users (VmRSS every 500 ms; persisted DynamoDB Local)`);
      const persisted = await startRuntime({ inMemory: false, env: SIZES.runtimeEnv });
      let memoryRuns: Awaited<ReturnType<typeof measure>>;
      try {
        memoryRuns = await measure('rss', memoryPlan, () => memoryRun(persisted, chunks, chunkSize), log);
      } finally {
        await persisted.stop();
      }
      results.memory = { users: memoryUsers, chunks, chunkSize, intervalMs: 500, runs: memoryRuns };
      for (const [name, label] of [
        ['node', 'runtime node'],
        ['dynamodb', 'DynamoDB Local JVM'],
      ] as const) {
        rows.push(
          ...summaryRows(`6. RSS, ${memoryUsers} users, ${label}`, memoryRuns, [
            ['peak', 'MB', `${name}PeakMb`],
            ['slope of tenth peaks', 'MB per 10k users', `${name}SlopeMbPer10k`, '≈ 0 (flat)'],
            ['last / first tenth peak', '×', `${name}LastFirstRatio`, '≈ 1 (flat)'],
          ]),
        );
      }
      rows.push(
        ...summaryRows(`6. RSS, ${memoryUsers} users`, memoryRuns, [
          ['import throughput', 'users/s', 'usersPerSecond'],
        ]),
      );
    }

    // 8. Bundle size and import time vs a bundle of the DynamoDB document client alone.
    if (want(8)) {
      log('8. bundle sizes and import times vs the document-client-only reference');
      const bundles = await measureBundles(plan, log);
      results.bundles = bundles.results;
      rows.push(...bundles.rows);
    }

    // 9. The migration command: conversion speed and memory, and `migrate` vs posting directly.
    if (want(9)) await migrateCommand();
    async function migrateCommand() {
      const m = SIZES.migrate;
      const migratePlan: RunPlan = runs ? { ...m.plan, runs } : m.plan;
      log(
        `9. auth-core migrate: converting ${m.convertRecords} Auth0 records; migrate of ${m.users} users vs the same users posted directly`,
      );
      const conversion = await measure('convert', migratePlan, () => conversionRun(m.convertRecords, m.batch), log);
      const endToEnd = await measure('migrate', migratePlan, () => commandVsDirect(runtime, m.users, m.batch), log);
      results.migrateCommand = { ...m, conversion, endToEnd };
      rows.push(
        ...summaryRows(`9. Converting ${m.convertRecords} Auth0 records`, conversion, [
          ['speed', 'users/s', 'usersPerSecond'],
          ['peak RSS', 'MB', 'peakRssMb'],
          ['RSS last / first tenth', '×', 'lastFirstRssRatio', '≈ 1 (flat)'],
        ]),
        ...summaryRows(`9. migrate of ${m.users} users (batch ${m.batch})`, endToEnd, [
          ['command', 'users/s', 'commandUsersPerSecond'],
          ['posted directly', 'users/s', 'directUsersPerSecond'],
          ['ratio', '×', 'ratio', '≥ 0.9'],
        ]),
      );
    }

    // 14. Request sizes: the command's adaptive staging requests vs fixed 10,000-user ones, and the
    // largest request that fits in the budget here.
    if (want(14)) await requestSizes();
    async function requestSizes() {
      const s = SIZES.sizes;
      const sizesPlan: RunPlan = runs ? { ...s.plan, runs } : s.plan;
      log(`14. staging ${s.users} users with --batch-size auto vs 10000; the largest request inside the budget`);
      const sizeRuns = await measure('sizes', sizesPlan, () => adaptiveVsFixed(runtime, s.users), log);
      const fit = await largestInBudget(runtime, s.fit);
      log(`  largest request inside the budget: ${JSON.stringify(fit)}`);
      results.requestSizes = { users: s.users, runs: sizeRuns, largest: fit };
      rows.push(
        ...summaryRows(`14. Staging ${s.users} users, request sizes`, sizeRuns, [
          ['--batch-size auto', 'users/s', 'autoUsersPerSecond'],
          ['--batch-size 10000', 'users/s', 'fixedUsersPerSecond'],
          ['auto ÷ 10000', '×', 'ratio', '≥ 1'],
          ['auto: requests', 'count', 'autoRequests'],
          ['auto: answers sent again', 'count', 'autoRetries'],
          ['10000: requests', 'count', 'fixedRequests'],
          ['10000: answers sent again', 'count', 'fixedRetries'],
        ]),
        {
          measurement: '14. Largest staging request inside the budget',
          metric: 'users (first try answered 200)',
          unit: 'users',
          summary: summarise([fit.largestUsers as number]),
        },
        {
          measurement: '14. Largest staging request inside the budget',
          metric: 'its time',
          unit: 'ms',
          summary: summarise([fit.largestMs as number]),
        },
      );
    }
  } finally {
    await runtime.stop();
  }
  const totalSeconds = round((performance.now() - started) / 1000, 1);
  const meta = {
    mode: quick ? 'quick' : 'full',
    ...(only ? { only: [...only].sort().join(',') } : {}),
    date: new Date().toISOString(),
    totalSeconds,
    machine,
    inMemory,
    ...(runs ? { runs } : {}),
  };
  const cost = results.costModel as {
    model: ReturnType<typeof costModel>;
    sample: Parameters<typeof unitNotes>[0];
    breakdown: string[];
  };
  const model = cost.model;
  const notes = [
    'System under test: the local runtime (`bin/local.ts`) as a child process over HTTP; baselines in the bench process against the same DynamoDB Local.',
    `Bare transactions: the recorded write plan (staging transactions, then per SQS batch of ${batchSize} users the worker's TransactWriteItems in order) replayed with fresh ids and emails, ${runtime.workerConcurrency} batches (${concurrency} users) in flight (local pollers × batch size); reads not replayed.`,
    `5. Cost model, 1,000,000 users: $${round(model.totalUsd)} (target ≤ $10), ${round(model.wallMinutes, 1)} min on a new on-demand table untuned (target ≤ 60), ${round(model.wall[1]?.minutes ?? Number.NaN, 1)} min on one warmed to 40,000 WRU/s (target ≤ 10): ${model.wallArithmetic}.`,
    ...capacityNotes(results),
    ...model.lines.map((l) => `   ${l.item}: ${l.arithmetic} = $${round(l.usd, 3)}`),
    `   Request units: computed from the recorded calls with AWS's rules (bench/lib/billing.ts), not DynamoDB Local's ConsumedCapacity, which does not apply them. Item size = UTF-8 attribute names + values (string bytes; number ≈ significant digits / 2 + 1; boolean/null 1; list/map 3 + per element 1 + size). Standard write: 1 WRU per started KB of the larger of the item before and after (delete: the deleted item; a missing item still 1). Transactional Put/Update/Delete: 2 per started KB; ConditionCheck: a transactional write of its item (2 per KB, min 2; AWS documents no rule for it, and 2 WCU is what real DynamoDB reports per the dynamodb-conformance suite). Each GSI (GSI1-3, projection ALL), per written item: keys appear → 1 per KB of the new image; disappear → 1 per KB of the old; same keys → 1 per KB if any attribute changed, else 0; keys changed → 2 (delete old + put new), each per KB of its image; index writes are never doubled. Reads: 1 RRU per started 4 KB consistent, 0.5 eventual (Query: of the summed items read), TransactGet 2. Before/after images come from consistent reads by an unrecorded client around each write (units pass); timings from a second pass without them. Failed/cancelled calls: table units counted as if written, no index units, flagged.`,
    ...unitNotes(cost.sample).map((l) => `   ${l}`),
    ...cost.breakdown.map((l) => `   ${l}`),
    "4. Sign-in: one imported user per format, in an app of its own (the Firebase one with its `firebase_password_hashing_signer_key`; the legacy families' with `legacy_password_hash_upgrade_enabled: false`, so every sign-in verifies the legacy hash); sign-ins sequential over HTTP; bare verify in the bench process: the core's own `verifyPassword` (#functions/domain/passwords: what sign-in runs, without HTTP, lookup and response) of the stored form, with the same signer key for Firebase. The Firebase hash is built by the bench (bench/lib/firebase-scrypt.ts: hash-wasm scrypt + AES-256-CTR, checked against Firebase's published example) with Firebase's project parameters rounds 8, mem_cost 14, salt separator Bw==; the legacy ones with node:crypto as their sources compute them (bench/measurements/signin.ts).",
    ...upgradeNotes(results),
    ...passkeyNotes(results),
    ...timingNotes(results),
    ...plainNotes(results),
    ...memoryNotes(results),
    ...bundleNotes(results.bundles as BundleResults | undefined),
  ];
  const paths = writeResults({ meta, results }, markdown(meta, rows, notes));
  log(`\n${markdown(meta, rows, notes)}`);
  log(`written ${paths.json} and ${paths.md} (${totalSeconds} s)`);
}

function capacityNotes(results: Record<string, unknown>): string[] {
  const r = results.importCapacity as { users: number; units: number; doubling: number } | undefined;
  if (!r) return [];
  return [
    `13. The import on a capacity-limited table: a runtime of its own started with \`--write-capacity=${r.units},${r.doubling}\` (every table ${r.units} WRU/s, reads a third, doubled ${r.doubling} s after a sustained peak, DynamoDB's throttling answers beyond); per run two tables new to it: T with app A (the import: ${r.users} users with a given bcrypt-10 hash, staged in gzipped requests sent again after a 503) and app C, U with app B. Sign-ins (bcrypt 10, sequential, round-robin over A, C and B, each app's users imported beforehand) first with nothing else running (idle), then from the first staging request until NEW + PROCESSING = 0 ("while staging" until the last staging request answered, "importing" after). Table use: the runtime's capacity lines for T, used ÷ budget per 10-s window, median over the windows at the first budget after the first two while the import ran.`,
  ];
}

function upgradeNotes(results: Record<string, unknown>): string[] {
  const r = results.signInUpgrade as
    | { requestsPerRun: number; units: Awaited<ReturnType<typeof recordUpgrade>> }
    | undefined;
  if (!r) return [];
  return [
    `4. Upgrade: per run ${r.requestsPerRun} fresh users with a salted SHA-256 in an app with the upgrade on and ${r.requestsPerRun} in one with it off; each user's first sign-in over HTTP, interleaved, then the upgraded users' second sign-in (bcrypt at the runtime's \`bcrypt_log_rounds\`${quick ? ', 8 in quick mode' : ''}). Write units: one upgrading sign-in and the next through the sign-in handler in the bench process, priced with AWS's rules: ${r.units.upgrade.writeUnits} WRU (table ${r.units.upgrade.tableWriteUnits}, indexes ${JSON.stringify(r.units.indexWrites)}) in ${r.units.upgradeWrites.join(', ')} of a ${r.units.userItemBytes}-byte USER item; ${r.units.upgrade.readUnits} RRU; the next sign-in ${r.units.next.writeUnits} WRU, ${r.units.next.readUnits} RRU.`,
  ];
}

function passkeyNotes(results: Record<string, unknown>): string[] {
  const r = results.passkeys as
    | { requestsPerRun: number; units: Awaited<ReturnType<typeof recordPasskeyUnits>> }
    | undefined;
  if (!r) return [];
  const u = (x: { writeUnits: number; readUnits: number; calls: string[] }) =>
    `${x.writeUnits} WRU, ${x.readUnits} RRU (${x.calls.join(', ')})`;
  return [
    `15. Passkeys: one app with a passkey user (ES256, the software authenticator of test/helpers/webauthn-authenticator.ts, counting) and an email/password user (bcrypt at the runtime's \`bcrypt_log_rounds\`${quick ? ', 8 in quick mode' : ''}); per run ${r.requestsPerRun} rounds over HTTP of a passkey sign-in (its options fetched and its assertion signed before the clock starts; CDI 5.4, as supertokens-node 24 sends it), a password sign-in and \`/hello\`. Units through the handlers in the bench process, priced with AWS's rules: sign-in options ${u(r.units.signInOptions)}; a passkey sign-in on CDI 5.4 ${u(r.units.signInCdi54)}; on CDI 5.5, consuming its options, ${u(r.units.signInCdi55)}.`,
  ];
}

function timingNotes(results: Record<string, unknown>): string[] {
  const r = results.signInTiming as { rounds: number; argon2: { memorySize: number; iterations: number } } | undefined;
  if (!r) return [];
  return [
    `10. Failed sign-in timing: one app with the runtime's default BCRYPT at its \`bcrypt_log_rounds\`${quick ? ' (8 in quick mode)' : ''}; per run ${r.rounds} rounds of four sign-ins over HTTP, one of each kind, the order rotated each round: an unknown email, a wrong password for a signed-up user (bcrypt at the app's cost), a wrong password for a user imported with a salted SHA-256, an empty password for a user imported with Argon2id m = ${r.argon2.memorySize}, t = ${r.argon2.iterations}, p = 1 (cheaper than the app's bcrypt); every answer checked to be WRONG_CREDENTIALS_ERROR. Ratios: each kind's median latency ÷ the unknown email's, per run.`,
  ];
}

function plainNotes(results: Record<string, unknown>): string[] {
  const r = results.plainTextImport as { bcryptCost: number; hashingWorkers: number } | undefined;
  if (!r) return ['3. Plain-text import: not measured in this run (see --only, or an earlier step failed).'];
  return [
    `3. Plain-text import: the app's default BCRYPT at the runtime's \`bcrypt_log_rounds\` = ${r.bcryptCost}${quick ? ' (BCRYPT_LOG_ROUNDS=8 in quick mode)' : ''}; baseline: the same number of hash-wasm bcrypt hashes at cost ${r.bcryptCost} on ${r.hashingWorkers} worker threads (one per core), in the bench process, between the runtime's runs; ratio = users/s ÷ hashes/s.`,
  ];
}

function memoryNotes(results: Record<string, unknown>): string[] {
  const r = results.memory as
    | { users: number; chunks: number; chunkSize: number; runs: Record<string, { median: number }> }
    | undefined;
  if (!r) return ['6. RSS: not measured in this run (see --only, or an earlier step failed).'];
  const tenths = (name: string) =>
    Array.from({ length: 10 }, (_, i) => round(r.runs[`${name}Tenth${i + 1}Mb`]?.median ?? Number.NaN, 0)).join(', ');
  return [
    `6. RSS: ${r.chunks} staging POSTs of ${r.chunkSize} users (a given cheap hash), then wait for count 0; VmRSS of the runtime's node process and its DynamoDB Local JVM every 500 ms; samples attributed to the tenth of the import in progress (staging lies in the first tenth). Slope: least squares of the ten tenth peaks against users imported.`,
    `   node peak per tenth (MB, median of runs): ${tenths('node')}`,
    `   DynamoDB Local peak per tenth (MB, median of runs): ${tenths('dynamodb')}`,
    ...(r.users < 100_000 ? [`   Only ${r.users} users in this mode; the 100,000-user figure needs full mode.`] : []),
  ];
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
