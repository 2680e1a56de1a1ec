/**
 * Invariant 2 of the import pipeline (docs/import-pipeline.md "Invariants (each has tests)"): a local runtime killed in the middle of a bulk
 * import loses nothing. 10,000 users are staged in one gzipped request, the runtime is SIGKILLed
 * while the import runs, and a new runtime on the same data directory finishes the job: every
 * staged user ends imported exactly once, none FAILED, none left NEW/PROCESSING. No password hash
 * may reach the runtime's output (invariant 5). The same holds while DynamoDB throttles 30 % of
 * calls (`--simulate-throttling=0.3` on both runtimes; 2,000 users staged in requests of 500, as a
 * persisted DynamoDB Local on two shared cores imports a few users per second under it).
 */
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import type { LocalProcess } from '../helpers/local-process.js';
import { killHard, useRuntimes } from '../helpers/runtimes.js';
import { getJson, listUsers, stageInChunks, TEST_BACKPRESSURE } from './throttling-helpers.js';

interface Scenario {
  readonly users: number;
  /** Users per staging request. */
  readonly chunk: number;
  /** Kill the first runtime once this many users are imported (and some are still pending). */
  readonly killAfterImported: number;
  /** The fraction of DynamoDB calls the runtimes fail with throttling errors. */
  readonly throttling?: number;
}
/**
 * Two shared cores and a persisted DynamoDB Local (measured: 5–20 imported users/s, depending on
 * what else runs): the rest of the import takes many minutes. The stall limit below is the real
 * guard against a pipeline that stopped.
 */
const DRAIN_TIMEOUT_MS = 15 * 60_000;
/** …but it must keep moving: this long without a single user imported is a stall. */
const STALL_TIMEOUT_MS = 2 * 60_000;
/** One cost-4 hash shared by every user: the import stores it, no hashing happens. */
const PASSWORD_HASH = bcrypt.hashSync('crash-test-password', bcrypt.genSaltSync(4));

const runtimes = useRuntimes();

async function start(dataDir: string, scenario: Scenario): Promise<LocalProcess> {
  const throttled = scenario.throttling !== undefined;
  const runtime = await runtimes.start({
    dataDir,
    args: throttled ? [`--simulate-throttling=${scenario.throttling}`] : [],
    env: {
      API_KEYS: undefined,
      ...(throttled ? { IMPORT_BACKPRESSURE: TEST_BACKPRESSURE, LOCAL_IMPORT_CONTEXTS: '4' } : {}),
    },
  });
  await runtime.waitUntilReady();
  return runtime;
}

let APP_ID = '';

async function stagedCount(runtime: LocalProcess, status?: 'NEW' | 'PROCESSING' | 'FAILED'): Promise<number> {
  const query = status === undefined ? '' : `?status=${status}`;
  return (await getJson(runtime, `/appid-${APP_ID}/bulk-import/users/count${query}`)).count as number;
}

async function importedCount(runtime: LocalProcess): Promise<number> {
  return (await getJson(runtime, `/appid-${APP_ID}/users/count`)).count as number;
}

interface Progress {
  readonly at: number;
  readonly pending: number;
  readonly imported: number;
  readonly failed: number;
}

async function progress(runtime: LocalProcess): Promise<Progress> {
  const [fresh, processing, failed, imported] = await Promise.all([
    stagedCount(runtime, 'NEW'),
    stagedCount(runtime, 'PROCESSING'),
    stagedCount(runtime, 'FAILED'),
    importedCount(runtime),
  ]);
  return { at: Date.now(), pending: fresh + processing, imported, failed };
}

/** Fails fast (with the first error message) once any staged user is FAILED: none may be. */
async function assertNoneFailed(runtime: LocalProcess, now: Progress): Promise<void> {
  if (now.failed === 0) return;
  const page = await getJson(runtime, `/appid-${APP_ID}/bulk-import/users?status=FAILED&limit=1`);
  throw new Error(`${now.failed} staged users FAILED (${JSON.stringify(now)}): ${page.users[0]?.errorMessage}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const perSecond = (users: number, ms: number) => Math.round((users * 1000) / Math.max(ms, 1));

const usersOf = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email: `crash-user-${i}@example.com`,
        passwordHash: PASSWORD_HASH,
        hashingAlgorithm: 'BCRYPT',
      },
    ],
  }));

async function crashMidImport(scenario: Scenario): Promise<void> {
  const USER_COUNT = scenario.users;
  APP_ID = `crash-${Math.random().toString(36).slice(2, 8)}`;
  const dir = runtimes.dataDir();

  // --- First run: create the app and stage the users in gzipped requests.
  const first = await start(dir, scenario);
  let created: Response | undefined;
  for (let attempt = 0; attempt < 20 && created?.status !== 200; attempt++) {
    created = await first.fetch('/recipe/multitenancy/app/v2', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ appId: APP_ID }),
    });
  }
  expect(created?.status).toBe(200);

  const stageStart = Date.now();
  const staged = await stageInChunks(first, APP_ID, usersOf(USER_COUNT), scenario.chunk);
  const stageMs = Date.now() - stageStart;
  const stagedIds = new Set(staged.ids);
  expect(stagedIds.size).toBe(USER_COUNT);

  // --- Wait until the import is under way but not done, then kill the runtime without warning.
  let beforeKill: Progress | undefined;
  const watchDeadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const now = await progress(first);
    await assertNoneFailed(first, now);
    if (now.imported >= scenario.killAfterImported || now.pending === 0) {
      beforeKill = now;
      break;
    }
    if (Date.now() > watchDeadline) throw new Error(`import did not get going: ${JSON.stringify(now)}`);
    // Each poll is four requests to the runtime under test: keep the observer's load small.
    await sleep(500);
  }
  const killedAt = Date.now();
  expect((await killHard(first, dir)).signal).toBe('SIGKILL');
  expect(beforeKill.pending, 'the import finished before the runtime could be killed mid-way').toBeGreaterThan(0);
  expect(beforeKill.imported).toBeGreaterThan(0);

  // --- Second run on the same data: the pipeline picks up what was left and finishes it.
  const restartAt = Date.now();
  const second = await start(dir, scenario);
  const readyAt = Date.now();
  const afterRestart = await progress(second);
  // Nothing imported was lost by the crash.
  expect(afterRestart.imported).toBeGreaterThanOrEqual(beforeKill.imported);

  let last = afterRestart;
  let lastMove = afterRestart;
  const drainDeadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (last.pending > 0) {
    if (Date.now() > drainDeadline || last.at - lastMove.at > STALL_TIMEOUT_MS) {
      throw new Error(
        `still ${last.pending} staged users NEW/PROCESSING (${last.imported} imported, ` +
          `${afterRestart.imported} at the restart) ${Math.round((last.at - readyAt) / 1000)} s after the restart` +
          `\n${second.describe()}`,
      );
    }
    await sleep(2_000);
    last = await progress(second);
    if (last.imported !== lastMove.imported || last.pending !== lastMove.pending) lastMove = last;
    await assertNoneFailed(second, last);
  }
  const drainedAt = last.at;

  // --- Every staged user imported, exactly once, none failed.
  expect(await stagedCount(second, 'FAILED')).toBe(0);
  expect(await stagedCount(second)).toBe(0);
  expect(await importedCount(second)).toBe(USER_COUNT);

  const { emails, ids, listed } = await listUsers(second, APP_ID);
  expect(listed).toBe(USER_COUNT);
  expect(ids.size).toBe(USER_COUNT);
  // Each user keeps the id it was staged with.
  expect([...ids].filter((id) => !stagedIds.has(id))).toEqual([]);
  expect(emails.size).toBe(USER_COUNT);
  expect([...emails].filter(([, n]) => n !== 1)).toEqual([]);
  const missing = Array.from({ length: USER_COUNT }, (_, i) => `crash-user-${i}@example.com`).filter(
    (email) => !emails.has(email),
  );
  expect(missing).toEqual([]);

  // --- No credential in anything either runtime printed.
  for (const runtime of [first, second]) {
    const output = runtime.stdout + runtime.stderr;
    expect(output.includes(PASSWORD_HASH), 'a password hash reached the runtime output').toBe(false);
    expect(output.includes(PASSWORD_HASH.slice(7)), 'a password hash reached the runtime output').toBe(false);
  }

  const timings = {
    stageMs,
    stagingRequests: Math.ceil(USER_COUNT / scenario.chunk),
    stagingRetried503: staged.unavailable,
    killedAfterMs: killedAt - stageStart,
    importedBeforeKill: beforeKill.imported,
    throughputBeforeKill: perSecond(beforeKill.imported, beforeKill.at - stageStart),
    restartMs: readyAt - restartAt,
    importedAtRestart: afterRestart.imported,
    drainAfterRestartMs: drainedAt - readyAt,
    throughputAfterRestart: perSecond(USER_COUNT - afterRestart.imported, drainedAt - readyAt),
  };
  console.log(`bulk-crash timings ${JSON.stringify({ throttling: scenario.throttling ?? 0, ...timings })}`);
}

describe('bulk import across a crash of the local runtime', () => {
  it('imports every staged user exactly once after a SIGKILL mid-import', { timeout: 25 * 60_000 }, () =>
    crashMidImport({ users: 10_000, chunk: 10_000, killAfterImported: 1_000 }),
  );

  it('does so while DynamoDB throttles 30 % of calls', { timeout: 25 * 60_000 }, () =>
    crashMidImport({ users: 2_000, chunk: 500, killAfterImported: 300, throttling: 0.3 }),
  );
});
