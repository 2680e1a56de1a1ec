/**
 * Throttling is backpressure, rehearsed end to end: the local runtime started with
 * `--simulate-throttling=0.3` fails 30 % of its handlers' DynamoDB calls with DynamoDB's
 * throttling exceptions. 10,000 users staged through it (requests answered 503 are sent again, as
 * the migration command does) are all imported exactly once, none FAILED, every count exact — and
 * the import's metrics, as the functions emit them, add up to the same numbers.
 */
import bcrypt from 'bcryptjs';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalProcess } from '../helpers/local-process.js';
import { emittedCounts, getJson, listUsers, stageInChunks, TEST_BACKPRESSURE } from './throttling-helpers.js';

const USER_COUNT = 10_000;
const CHUNK = 1_000;
/** Two shared cores: the import runs at tens of users per second; a stall is the real failure. */
const DRAIN_TIMEOUT_MS = 12 * 60_000;
const STALL_TIMEOUT_MS = 2 * 60_000;
const PASSWORD_HASH = bcrypt.hashSync('throttled-password', bcrypt.genSaltSync(4));
const APP_ID = `thr-${Math.random().toString(36).slice(2, 8)}`;

let runtime: LocalProcess | undefined;
afterAll(async () => {
  await runtime?.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function counts(r: LocalProcess) {
  const count = async (path: string) => (await getJson(r, path)).count as number;
  const [fresh, processing, failed, imported] = await Promise.all([
    count(`/appid-${APP_ID}/bulk-import/users/count?status=NEW`),
    count(`/appid-${APP_ID}/bulk-import/users/count?status=PROCESSING`),
    count(`/appid-${APP_ID}/bulk-import/users/count?status=FAILED`),
    count(`/appid-${APP_ID}/users/count`),
  ]);
  return { at: Date.now(), pending: fresh + processing, failed, imported };
}

describe('a bulk import while DynamoDB throttles 30 % of calls', () => {
  it('imports 10,000 users exactly once, none FAILED, counts exact', { timeout: 20 * 60_000 }, async () => {
    runtime = await LocalProcess.start({
      args: ['--in-memory', '--simulate-throttling=0.3'],
      env: { API_KEYS: undefined, IMPORT_BACKPRESSURE: TEST_BACKPRESSURE, LOCAL_IMPORT_CONTEXTS: '4' },
    });
    const r = runtime;
    await r.waitUntilReady();
    expect(r.stdout).toContain(
      'Throttling: SIMULATED — 30 % of DynamoDB calls fail with throttling errors (rehearsal of a busy table',
    );
    let created: Response | undefined;
    for (let attempt = 0; attempt < 20 && created?.status !== 200; attempt++) {
      created = await r.fetch('/recipe/multitenancy/app/v2', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ appId: APP_ID }),
      });
    }
    expect(created?.status).toBe(200);

    const users = Array.from({ length: USER_COUNT }, (_, i) => ({
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: `throttled-${i}@example.com`,
          passwordHash: PASSWORD_HASH,
          hashingAlgorithm: 'BCRYPT',
        },
      ],
    }));
    const started = Date.now();
    const staged = await stageInChunks(r, APP_ID, users, CHUNK);
    const stagedAt = Date.now();
    expect(new Set(staged.ids).size).toBe(USER_COUNT);

    let last = await counts(r);
    let lastMove = last;
    while (last.pending > 0 || last.imported < USER_COUNT) {
      expect(last.failed, 'a throttled user was marked FAILED').toBe(0);
      if (Date.now() - started > DRAIN_TIMEOUT_MS || last.at - lastMove.at > STALL_TIMEOUT_MS) {
        throw new Error(`import stalled: ${JSON.stringify(last)}\n${r.describe()}`);
      }
      await sleep(2_000);
      last = await counts(r);
      if (last.imported !== lastMove.imported || last.pending !== lastMove.pending) lastMove = last;
    }
    const doneAt = Date.now();

    expect(last).toMatchObject({ pending: 0, failed: 0, imported: USER_COUNT });
    expect((await getJson(r, `/appid-${APP_ID}/bulk-import/users/count`)).count).toBe(0);
    const listed = await listUsers(r, APP_ID);
    expect(listed.listed).toBe(USER_COUNT);
    expect(listed.ids).toEqual(new Set(staged.ids));
    expect(listed.emails.size).toBe(USER_COUNT);
    expect([...listed.emails].filter(([, n]) => n !== 1)).toEqual([]);

    // The rehearsal did throttle: users were returned to the queue, and the metrics say so exactly.
    const metrics = emittedCounts(r.stdout);
    expect(metrics.UsersStaged).toBe(USER_COUNT);
    expect(metrics.UsersImported).toBe(USER_COUNT);
    expect(metrics.UsersFailed ?? 0).toBe(0);
    expect(metrics.ImportThrottled).toBeGreaterThan(0);
    expect(r.stdout).toContain('"message":"import met backpressure; users come back later"');
    expect(r.stdout.includes(PASSWORD_HASH)).toBe(false);

    console.log(
      `bulk-throttling timings ${JSON.stringify({
        stageMs: stagedAt - started,
        stagingRetried503: staged.unavailable,
        importMs: doneAt - stagedAt,
        usersPerSecond: Math.round((USER_COUNT * 1000) / (doneAt - stagedAt)),
        throttledReturns: metrics.ImportThrottled,
      })}`,
    );
  });
});
