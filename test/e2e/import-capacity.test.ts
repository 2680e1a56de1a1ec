/**
 * The import follows the table, rehearsed end to end: the local runtime started with
 * `--write-capacity=100` gives every table an on-demand table's behaviour at 100 write units per
 * second — DynamoDB's throttling answers beyond it. 600 users staged through it are all imported
 * exactly once, none FAILED, while the import's pace (functions/shared/import-pace.ts) raises its
 * writes until the table refuses some, then backs off instead of hammering it, and never goes far
 * above the budget. How close to the budget it then stays is a throughput figure, bench measurement
 * 13's (docs/performance.md): on a machine running other work the import is CPU-bound below it.
 */
import bcrypt from 'bcryptjs';
import { afterAll, describe, expect, it } from 'vitest';
import { capacityWindows } from '../../bin/local/capacity.js';
import { LocalProcess } from '../helpers/local-process.js';
import { getJson, listUsers, stageInChunks } from './throttling-helpers.js';

// A budget low enough that the import reaches it on a 2-core machine (at 200 WRU/s a loaded one's
// import stayed near 100: CPU-bound, not paced); users enough for several 10-second windows.
const USER_COUNT = 400;
const BUDGET = 100;
const DRAIN_TIMEOUT_MS = 8 * 60_000;
const PASSWORD_HASH = bcrypt.hashSync('paced-password', bcrypt.genSaltSync(4));
const APP_ID = `cap-${Math.random().toString(36).slice(2, 8)}`;

let runtime: LocalProcess | undefined;
afterAll(async () => {
  await runtime?.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('an import into a table with the capacity of an on-demand table', () => {
  it('imports every user exactly once, none FAILED, backing off when the table refuses writes', {
    timeout: 12 * 60_000,
  }, async () => {
    runtime = await LocalProcess.start({
      args: ['--in-memory', `--write-capacity=${BUDGET}`],
      env: { API_KEYS: undefined },
    });
    const r = runtime;
    await r.waitUntilReady();
    expect(r.stdout).toContain(`Capacity:  LIMITED — every table ${BUDGET} WRU/s at first (reads count a third)`);
    const created = await r.fetch('/recipe/multitenancy/app/v2', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ appId: APP_ID }),
    });
    expect(created.status).toBe(200);

    const users = Array.from({ length: USER_COUNT }, (_, i) => ({
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: `paced-${i}@example.com`,
          passwordHash: PASSWORD_HASH,
          hashingAlgorithm: 'BCRYPT',
        },
      ],
    }));
    const staged = await stageInChunks(r, APP_ID, users, 250);
    expect(new Set(staged.ids).size).toBe(USER_COUNT);
    const importFrom = r.stdout.length;

    const started = Date.now();
    for (;;) {
      const count = async (status: string) =>
        (await getJson(r, `/appid-${APP_ID}/bulk-import/users/count?status=${status}`)).count as number;
      const [fresh, processing, failed] = [await count('NEW'), await count('PROCESSING'), await count('FAILED')];
      expect(failed, 'a user the table was too busy for was marked FAILED').toBe(0);
      if (fresh + processing === 0) break;
      if (Date.now() - started > DRAIN_TIMEOUT_MS)
        throw new Error(`import too slow: ${fresh + processing} left\n${r.describe()}`);
      await sleep(2_000);
    }
    const imported = (await getJson(r, `/appid-${APP_ID}/users/count`)).count as number;
    expect(imported).toBe(USER_COUNT);
    const listed = await listUsers(r, APP_ID);
    expect(listed.ids.size).toBe(USER_COUNT);
    expect([...listed.emails.values()].every((n) => n === 1)).toBe(true);

    // The base table's windows while the import ran (the last one may be partly idle).
    const windows = capacityWindows(r.stdout.slice(importFrom)).filter((w) => w.table === 'auth-core');
    const busy = windows.slice(0, -1);
    expect(busy.length, r.describe()).toBeGreaterThanOrEqual(3);
    for (const w of windows) expect(w.budget).toBe(BUDGET);
    // Never far above the budget: one second of it as a burst per 10-second window at most.
    for (const w of busy) expect(w.used).toBeLessThanOrEqual(BUDGET * 1.15);
    // The table refused some writes: the import found the budget (its slow start overshoots it).
    expect(windows.some((w) => w.throttled > 0)).toBe(true);
    // And then it backed off: after the first window with refusals, the table refuses a small share
    // of what it is sent, however fast the machine lets the import go (in the window where the slow
    // start overshoots, about half of the requests are refused).
    const first = windows.findIndex((w) => w.throttled > 0);
    const after = windows.slice(first + 1);
    const refused = after.reduce((n, w) => n + w.throttled, 0);
    const sent = after.reduce((n, w) => n + w.requests, 0);
    expect(refused / Math.max(1, sent), JSON.stringify(windows)).toBeLessThanOrEqual(0.25);
  });
});
