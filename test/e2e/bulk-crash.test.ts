/**
 * Invariant 2 of the import pipeline (design §6): a local runtime killed in the middle of a bulk
 * import loses nothing. 10,000 users are staged in one gzipped request, the runtime is SIGKILLed
 * while the import runs, and a new runtime on the same data directory finishes the job: every
 * staged user ends imported exactly once, none FAILED, none left NEW/PROCESSING. No password hash
 * may reach the runtime's output (invariant 5).
 */
import { gzipSync } from 'node:zlib';
import bcrypt from 'bcryptjs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  dynamoDbLocalProcessesMentioning,
  freshDataDir,
  LocalProcess,
  removeDir,
  waitUntil,
} from '../helpers/local-process.js';

const USER_COUNT = 10_000;
/** Kill the first runtime once this many users are imported (and some are still pending). */
const KILL_AFTER_IMPORTED = 1_000;
/**
 * Two shared cores and a persisted DynamoDB Local (measured: 5–20 imported users/s, depending on
 * what else runs): the rest of the import takes many minutes. The stall limit below is the real
 * guard against a pipeline that stopped.
 */
const DRAIN_TIMEOUT_MS = 15 * 60_000;
/** …but it must keep moving: this long without a single user imported is a stall. */
const STALL_TIMEOUT_MS = 2 * 60_000;
const PAGE_LIMIT = 500;
/** One cost-4 hash shared by every user: the import stores it, no hashing happens. */
const PASSWORD_HASH = bcrypt.hashSync('crash-test-password', bcrypt.genSaltSync(4));
const APP_ID = `crash-${Math.random().toString(36).slice(2, 8)}`;

const started: LocalProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.dispose()));
});

afterAll(() => {
  for (const dir of dirs) removeDir(dir);
});

async function start(dataDir: string): Promise<LocalProcess> {
  const runtime = await LocalProcess.start({ dataDir, env: { API_KEYS: undefined } });
  started.push(runtime);
  await runtime.waitUntilReady();
  return runtime;
}

async function getJson(runtime: LocalProcess, path: string): Promise<any> {
  const response = await runtime.fetch(path);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} → ${response.status}: ${text}`);
  return JSON.parse(text);
}

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

function stagingBody(): Buffer {
  const users = Array.from({ length: USER_COUNT }, (_, i) => ({
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email: `crash-user-${i}@example.com`,
        passwordHash: PASSWORD_HASH,
        hashingAlgorithm: 'BCRYPT',
      },
    ],
  }));
  return gzipSync(JSON.stringify({ users }));
}

describe('bulk import across a crash of the local runtime', () => {
  it('imports every staged user exactly once after a SIGKILL mid-import', { timeout: 25 * 60_000 }, async () => {
    const dir = freshDataDir();
    dirs.push(dir);

    // --- First run: create the app and stage 10,000 users in one gzipped request.
    const first = await start(dir);
    const created = await first.fetch('/recipe/multitenancy/app/v2', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ appId: APP_ID }),
    });
    expect(created.status, await created.clone().text()).toBe(200);

    const body = stagingBody();
    const stageStart = Date.now();
    const staged = await first.fetch(`/appid-${APP_ID}/bulk-import/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    });
    const stageMs = Date.now() - stageStart;
    const stagedText = await staged.text();
    expect(staged.status, stagedText.slice(0, 500)).toBe(200);
    const stagedJson = JSON.parse(stagedText) as { status: string; users: { userId: string }[] };
    expect(stagedJson.status).toBe('OK');
    expect(stagedJson.users).toHaveLength(USER_COUNT);
    const stagedIds = new Set(stagedJson.users.map((u) => u.userId));
    expect(stagedIds.size).toBe(USER_COUNT);

    // --- Wait until the import is under way but not done, then kill the runtime without warning.
    let beforeKill: Progress | undefined;
    const watchDeadline = Date.now() + DRAIN_TIMEOUT_MS;
    for (;;) {
      const now = await progress(first);
      await assertNoneFailed(first, now);
      if (now.imported >= KILL_AFTER_IMPORTED || now.pending === 0) {
        beforeKill = now;
        break;
      }
      if (Date.now() > watchDeadline) throw new Error(`import did not get going: ${JSON.stringify(now)}`);
      // Each poll is four requests to the runtime under test: keep the observer's load small.
      await sleep(500);
    }
    first.kill('SIGKILL');
    const killedAt = Date.now();
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(beforeKill.pending, 'the import finished before the runtime could be killed mid-way').toBeGreaterThan(0);
    expect(beforeKill.imported).toBeGreaterThan(0);
    // Its watchdog stops DynamoDB Local; the next start would also stop a leftover one.
    await waitUntil(() => dynamoDbLocalProcessesMentioning(dir).length === 0, 10_000);

    // --- Second run on the same data: the pipeline picks up what was left and finishes it.
    const restartAt = Date.now();
    const second = await start(dir);
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

    const emails = new Map<string, number>();
    const ids = new Set<string>();
    let listed = 0;
    let token: string | undefined;
    do {
      const query = `limit=${PAGE_LIMIT}${token === undefined ? '' : `&paginationToken=${encodeURIComponent(token)}`}`;
      const page = (await getJson(second, `/appid-${APP_ID}/public/users?${query}`)) as {
        users: { id: string; emails: string[] }[];
        nextPaginationToken?: string;
      };
      for (const user of page.users) {
        listed++;
        ids.add(user.id);
        for (const email of user.emails) emails.set(email, (emails.get(email) ?? 0) + 1);
      }
      token = page.nextPaginationToken;
    } while (token !== undefined);
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
      gzipBytes: body.length,
      killedAfterMs: killedAt - stageStart,
      importedBeforeKill: beforeKill.imported,
      throughputBeforeKill: perSecond(beforeKill.imported, beforeKill.at - stageStart),
      restartMs: readyAt - restartAt,
      importedAtRestart: afterRestart.imported,
      drainAfterRestartMs: drainedAt - readyAt,
      throughputAfterRestart: perSecond(USER_COUNT - afterRestart.imported, drainedAt - readyAt),
    };
    console.log(`bulk-crash timings ${JSON.stringify(timings)}`);
  });
});
