/**
 * Measurement 13: the import on a table with an on-demand table's capacity, and live sign-ins
 * while it runs.
 *
 * The runtime runs in its capacity-limited mode (`npm start -- --write-capacity=<units>,<doubling
 * seconds>`): every table has a budget of write units per second (reads count a third), doubled
 * one doubling period after a sustained peak, and DynamoDB's throttling answers beyond it
 * (bin/local/capacity-proxy.ts). Each run uses tables of its own, so each starts as a new table:
 *
 * - table T (new for the run): app A, into which `users` users are staged (requests of
 *   `chunk`, each sent again after a 503, as the migration command does) and imported, and app C,
 *   "another app on the same table";
 * - table U (new for the run): app B, "another app on its own table".
 *
 * Before the import, `signIns` sign-ins (sequential, over HTTP, round-robin over A, C and B, each
 * with one of `signInUsers` users imported into that app beforehand) give each app's idle p50 and
 * p99; the same sign-ins then run for as long as the import runs, from the first staging request
 * to `count?status=NEW` + `PROCESSING` = 0 — split into "while staging" and "while importing"
 * (after the last staging request). Results: each app's p50 / p99 during ÷ idle; the import's
 * throughput; table T's use of its budget from the runtime's capacity lines (`utilization`: the
 * median of used ÷ budget over the windows at the first budget, after the first two, while the
 * import ran — when the budget, not this machine, was the bound); FAILED users.
 */
import { capacityWindows } from '../../bin/local/capacity.js';
import { call, createApp, type Runtime } from '../lib/runtime.js';
import { percentile } from '../lib/stats.js';
import { importUsers, shortId } from '../lib/users.js';
import { PASSWORD } from './signin.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A request sent again after a 503 (what it says in Retry-After, at most 5 s), as clients do. A
 * staging request goes with an Idempotency-Key, as the migration command sends it: a request that
 * answered 503 after writing some of its users (its function timed out on a busy machine, or the
 * table refused the rest) is resumed by the next attempt, not staged twice; a 409 says the first
 * attempt still holds the key, so it is sent again too.
 */
async function retrying(
  runtime: Runtime,
  method: string,
  path: string,
  body?: unknown,
  gzip = false,
  idempotencyKey?: string,
) {
  const headers: Record<string, string> = idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey };
  for (let attempt = 0; ; attempt++) {
    const answer = await call(runtime, method, path, body, gzip, headers);
    const again = answer.status === 503 || (idempotencyKey !== undefined && answer.status === 409);
    if (!again || attempt >= 100) {
      if (answer.status !== 200) throw new Error(`${method} ${path} → ${answer.status}: ${answer.text.slice(0, 300)}`);
      return JSON.parse(answer.text) as Record<string, unknown>;
    }
    await sleep(1000 * Math.min(5, Math.max(0.2, answer.retryAfter)));
  }
}

export interface CapacityTarget {
  readonly table: string;
  readonly importApp: string;
  /** App id → emails of users imported into it (sign-in targets): A (same app), C (same table), B (own table). */
  readonly signInApps: {
    readonly label: 'sameApp' | 'sameTable' | 'ownTable';
    readonly appId: string;
    readonly emails: string[];
  }[];
}

/** Apps and sign-in users of one run, on two tables new to the runtime (so new to its capacity mode). */
export async function prepareCapacityRun(runtime: Runtime, signInUsers: number, hash: string): Promise<CapacityTarget> {
  const table = `bench-cap-${shortId()}`;
  const own = `bench-cap-${shortId()}`;
  const apps = {
    sameApp: `cap-a-${shortId()}`,
    sameTable: `cap-c-${shortId()}`,
    ownTable: `cap-b-${shortId()}`,
  } as const;
  await createApp(runtime, apps.sameApp, { dynamodb_table_name: table });
  await createApp(runtime, apps.sameTable, { dynamodb_table_name: table });
  await createApp(runtime, apps.ownTable, { dynamodb_table_name: own });
  const signInApps: CapacityTarget['signInApps'] = [];
  for (const label of ['sameApp', 'sameTable', 'ownTable'] as const) {
    const appId = apps[label];
    const emails: string[] = [];
    for (let i = 0; i < signInUsers; i++) {
      const email = `live-${i}-${shortId()}@example.com`;
      await retrying(runtime, 'POST', `/appid-${appId}/bulk-import/import`, {
        loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: hash, hashingAlgorithm: 'BCRYPT' }],
      });
      emails.push(email);
    }
    signInApps.push({ label, appId, emails });
  }
  return { table, importApp: apps.sameApp, signInApps };
}

type Phase = 'idle' | 'staging' | 'importing';

/** Sign-ins, one at a time, round-robin over the apps, until `stop()`; latencies by phase and app. */
function signInLoop(runtime: Runtime, target: CapacityTarget, phase: () => Phase | undefined) {
  const samples = new Map<string, number[]>();
  let refused = 0;
  const done = (async () => {
    for (let i = 0; ; i++) {
      const current = phase();
      if (current === undefined) return;
      const app = target.signInApps[i % target.signInApps.length] as CapacityTarget['signInApps'][number];
      const email = app.emails[Math.floor(i / target.signInApps.length) % app.emails.length] as string;
      const started = performance.now();
      const answer = await call(runtime, 'POST', `/appid-${app.appId}/recipe/signin`, { email, password: PASSWORD });
      const ms = performance.now() - started;
      if (answer.status !== 200 || !answer.text.includes('"OK"')) {
        refused++;
        continue;
      }
      const key = `${current}:${app.label}`;
      samples.set(key, [...(samples.get(key) ?? []), ms]);
    }
  })();
  return { samples, refused: () => refused, done };
}

export async function capacityRun(
  runtime: Runtime,
  target: CapacityTarget,
  options: { users: number; chunk: number; idleSignIns: number; hash: string; budget: number },
): Promise<Record<string, number>> {
  // Idle: the same sign-ins with nothing else running.
  let phase: Phase | undefined = 'idle';
  let idleCount = 0;
  const idle = signInLoop(runtime, target, () => (idleCount++ < options.idleSignIns ? 'idle' : undefined));
  await idle.done;

  const outputFrom = runtime.process.stdout.length;
  const live = signInLoop(runtime, target, () => phase);
  phase = 'staging';
  const started = performance.now();
  const users = importUsers(`cap-${shortId()}`, options.users, {
    kind: 'hash',
    passwordHash: options.hash,
    hashingAlgorithm: 'BCRYPT',
  });
  for (let i = 0; i < users.length; i += options.chunk) {
    await retrying(
      runtime,
      'POST',
      `/appid-${target.importApp}/bulk-import/users`,
      { users: users.slice(i, i + options.chunk) },
      true,
      `${target.importApp}-${i}`,
    );
  }
  const stagedMs = performance.now() - started;
  phase = 'importing';
  const count = async (status: string) =>
    (await retrying(runtime, 'GET', `/appid-${target.importApp}/bulk-import/users/count?status=${status}`))
      .count as number;
  let failed = 0;
  for (;;) {
    failed = await count('FAILED');
    if ((await count('NEW')) + (await count('PROCESSING')) === 0) break;
    await sleep(2_000);
  }
  const importMs = performance.now() - started;
  phase = undefined;
  await live.done;
  const imported = (await retrying(runtime, 'GET', `/appid-${target.importApp}/users/count`)).count as number;

  // Table T's windows while the import ran (the last is partly idle): at the first budget, after
  // the first two (the pace starts and finds the budget), its use of the budget.
  const windows = capacityWindows(runtime.process.stdout.slice(outputFrom)).filter((w) => w.table === target.table);
  const running = windows.slice(0, -1);
  const atFirstBudget = running.filter((w) => w.budget === options.budget).slice(2);
  const median = (xs: number[]) => percentile(xs, 50);
  const metrics: Record<string, number> = {
    users: options.users,
    imported: imported - (target.signInApps.find((a) => a.label === 'sameApp')?.emails.length ?? 0),
    failed,
    stageSeconds: stagedMs / 1000,
    importSeconds: importMs / 1000,
    usersPerSecond: (options.users * 1000) / importMs,
    utilization: atFirstBudget.length > 0 ? median(atFirstBudget.map((w) => w.used / w.budget)) : Number.NaN,
    maxUsedOverBudget: Math.max(...running.map((w) => w.used / w.budget)),
    finalBudget: windows.at(-1)?.budget ?? Number.NaN,
    throttledRequests: windows.reduce((n, w) => n + w.throttled, 0),
    signInsRefused: live.refused() + idle.refused(),
  };
  for (const app of target.signInApps) {
    const at = (p: Phase) => idle.samples.get(`${p}:${app.label}`) ?? live.samples.get(`${p}:${app.label}`) ?? [];
    const [calm, staging, importing] = [at('idle'), at('staging'), at('importing')];
    metrics[`${app.label}IdleP50`] = percentile(calm, 50);
    metrics[`${app.label}IdleP99`] = percentile(calm, 99);
    metrics[`${app.label}StagingP99`] = percentile(staging, 99);
    metrics[`${app.label}ImportP50`] = percentile(importing, 50);
    metrics[`${app.label}ImportP99`] = percentile(importing, 99);
    metrics[`${app.label}RatioP50`] = percentile(importing, 50) / percentile(calm, 50);
    metrics[`${app.label}RatioP99`] = percentile(importing, 99) / percentile(calm, 99);
    metrics[`${app.label}Samples`] = importing.length;
  }
  return metrics;
}
