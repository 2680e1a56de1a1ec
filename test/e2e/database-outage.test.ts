/**
 * A database that stops answering hangs no request and costs no user (docs/safe-defaults.md, "No hung request"):
 * DynamoDB Local is frozen (SIGSTOP, its pid from the runtime's pid file) for longer than every
 * function's timeout, then thawed (SIGCONT).
 *
 * (b) Requests sent while it is frozen — `/hello`, an app's `/hello`, a count, a sign-in — are
 *     answered by the core itself, before their function's timeout, with 503, `Retry-After` and the
 *     core's message: every AWS call's attempt is cut off within the request's budget
 *     (functions/shared/aws-timeouts.ts), and the budget ends 2 s before the timeout.
 * (a) An import of a few hundred staged users frozen mid-way: after the thaw every user is
 *     imported exactly once (one user per email, the ids they were staged with), none FAILED, no
 *     staged row left — a timed-out call is backpressure, never a reason to fail a user.
 *
 * LOCAL_FUNCTION_TIMEOUT_SECONDS=15 caps every function's timeout (the import worker's 60 s, the
 * DLQ consumer's 30 s …; routes without their own keep the stack's 10 s), so a 25 s freeze exceeds
 * them all; IMPORT_BACKPRESSURE shortens the import's backoff. The figures (freeze length, time to
 * answer, time to finish the import after the thaw) are printed for docs/deploying-aws.md "When DynamoDB throttles".
 */
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.js';
import { functionTimeoutSeconds, LOCAL_FUNCTION_TIMEOUT_ENV } from '../../bin/local/timeouts.js';
import { freshDataDir, LocalProcess, removeDir } from '../helpers/local-process.js';
import { getJson, listUsers, stageInChunks, TEST_BACKPRESSURE } from './throttling-helpers.js';

const TIMEOUT_CAP_SECONDS = 15;
const ENV = { [LOCAL_FUNCTION_TIMEOUT_ENV]: String(TIMEOUT_CAP_SECONDS) };
/** Longer than every function's timeout under the cap (15 s) and than a route's (10 s). */
const FREEZE_MS = 25_000;
/**
 * What an answer may take beyond its function's timeout: the local HTTP hop and a worker-thread
 * hop on a shared 2-core machine. The core answers 2 s before the timeout (its budget's reserve),
 * and the runtime's own cut-off at the timeout answers 500, not 503: a 503 proves the core answered
 * in time; the margin only bounds how late that answer may reach the test.
 */
const MARGIN_MS = 2_000;
const USERS = 400;
const PASSWORD = 'outage-test-password';
const PASSWORD_HASH = bcrypt.hashSync(PASSWORD, bcrypt.genSaltSync(4));
const DRAIN_TIMEOUT_MS = 10 * 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const timeoutMsOf = (routeId: string) =>
  functionTimeoutSeconds(ROUTES.find((r) => r.id === routeId)?.timeoutSeconds, ENV) * 1000;

let runtime: LocalProcess;
let dynamodbPid = 0;
const appId = `outage-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  runtime = await LocalProcess.start({
    dataDir: freshDataDir(),
    env: { API_KEYS: undefined, IMPORT_BACKPRESSURE: TEST_BACKPRESSURE, ...ENV },
  });
  await runtime.waitForOutput(/Auth core \(local\) ready/, 120_000);
  expect(runtime.stdout).toContain(`every function at most ${TIMEOUT_CAP_SECONDS} s`);
  dynamodbPid = runtime.pidFile()?.dynamodbPid as number;
  expect(dynamodbPid).toBeGreaterThan(0);
  const created = await runtime.fetch('/recipe/multitenancy/app/v2', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ appId }),
  });
  expect(created.status).toBe(200);
});

afterAll(async () => {
  if (dynamodbPid > 0) {
    try {
      process.kill(dynamodbPid, 'SIGCONT');
    } catch {
      // Gone already.
    }
  }
  await runtime?.dispose();
  if (runtime) removeDir(runtime.dataDir);
});

/** Freezes DynamoDB Local for `ms`, running `during` meanwhile; returns when it is thawed. */
async function frozen<T>(
  ms: number,
  during: () => Promise<T>,
): Promise<{ result: T; frozenAt: number; thawedAt: number }> {
  process.kill(dynamodbPid, 'SIGSTOP');
  const frozenAt = Date.now();
  try {
    const result = await during();
    await sleep(Math.max(0, frozenAt + ms - Date.now()));
    return { result, frozenAt, thawedAt: Date.now() };
  } finally {
    process.kill(dynamodbPid, 'SIGCONT');
  }
}

interface Timed {
  readonly label: string;
  readonly routeId: string;
  readonly status: number;
  readonly retryAfter: string | null;
  readonly text: string;
  readonly ms: number;
}

async function timed(label: string, routeId: string, path: string, init?: RequestInit): Promise<Timed> {
  const start = Date.now();
  const response = await runtime.fetch(path, init);
  const text = await response.text();
  return {
    label,
    routeId,
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    text,
    ms: Date.now() - start,
  };
}

async function counts() {
  const [fresh, processing, failed, imported] = await Promise.all([
    getJson(runtime, `/appid-${appId}/bulk-import/users/count?status=NEW`),
    getJson(runtime, `/appid-${appId}/bulk-import/users/count?status=PROCESSING`),
    getJson(runtime, `/appid-${appId}/bulk-import/users/count?status=FAILED`),
    getJson(runtime, `/appid-${appId}/users/count`),
  ]);
  return {
    pending: (fresh.count as number) + (processing.count as number),
    failed: failed.count as number,
    imported: imported.count as number,
  };
}

describe('DynamoDB Local frozen (SIGSTOP) and thawed', () => {
  it('(b) requests sent while it is frozen are answered 503 with Retry-After before their timeout', {
    timeout: 5 * 60_000,
  }, async () => {
    // A user to sign in (imported before the freeze).
    const imported = await runtime.fetch(`/appid-${appId}/bulk-import/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        loginMethods: [
          {
            recipeId: 'emailpassword',
            email: 'early@example.com',
            passwordHash: PASSWORD_HASH,
            hashingAlgorithm: 'BCRYPT',
          },
        ],
      }),
    });
    expect(imported.status).toBe(200);

    const {
      result: answers,
      frozenAt,
      thawedAt,
    } = await frozen(FREEZE_MS, () =>
      Promise.all([
        timed('GET /hello', 'fallback', '/hello'),
        timed("GET an app's /hello", 'fallback', `/appid-${appId}/public/hello`),
        timed('GET the user count', 'users-count', `/appid-${appId}/users/count`),
        timed('POST a sign-in', 'signin', `/appid-${appId}/public/recipe/signin`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'early@example.com', password: PASSWORD }),
        }),
      ]),
    );
    for (const answer of answers) {
      expect(answer, answer.label).toMatchObject({
        status: 503,
        retryAfter: '5',
        text: 'The database is busy; retry later\n',
      });
      expect(answer.ms, answer.label).toBeLessThan(timeoutMsOf(answer.routeId) + MARGIN_MS);
    }

    // Thawed: the same requests succeed again.
    const after = await timed('GET /hello after the thaw', 'fallback', '/hello');
    expect(after.status).toBe(200);
    const signIn = await runtime.fetch(`/appid-${appId}/public/recipe/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'early@example.com', password: PASSWORD }),
    });
    expect((await signIn.json()) as { status: string }).toMatchObject({ status: 'OK' });
    console.log(
      `database-outage requests ${JSON.stringify({
        freezeMs: thawedAt - frozenAt,
        answers: answers.map((a) => ({
          request: a.label,
          status: a.status,
          ms: a.ms,
          functionTimeoutMs: timeoutMsOf(a.routeId),
        })),
        firstAnswerAfterThawMs: after.ms,
      })}`,
    );
  });

  it('(a) an import frozen mid-way finishes after the thaw: every user exactly once, none FAILED', {
    timeout: 15 * 60_000,
  }, async () => {
    const users = Array.from({ length: USERS }, (_, i) => ({
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: `outage-user-${i}@example.com`,
          passwordHash: PASSWORD_HASH,
          hashingAlgorithm: 'BCRYPT',
        },
      ],
    }));
    const staged = await stageInChunks(runtime, appId, users, USERS);
    const stagedIds = new Set(staged.ids);
    expect(stagedIds.size).toBe(USERS);
    // Plus the user of (b).
    const total = USERS + 1;

    // Wait until the import is under way, then freeze.
    let before = await counts();
    const watchDeadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (before.imported < 40 && before.pending > 0) {
      if (Date.now() > watchDeadline) throw new Error(`import did not get going: ${JSON.stringify(before)}`);
      await sleep(300);
      before = await counts();
    }
    expect(before.pending, 'the import finished before the freeze').toBeGreaterThan(0);
    const { frozenAt, thawedAt } = await frozen(FREEZE_MS, async () => undefined);

    // Drain after the thaw.
    let now = await counts();
    while (now.pending > 0) {
      if (now.failed > 0) break;
      if (Date.now() - thawedAt > DRAIN_TIMEOUT_MS) {
        throw new Error(`still ${JSON.stringify(now)} after the thaw\n${runtime.describe()}`);
      }
      await sleep(1_000);
      now = await counts();
    }
    const drainedAfterThawMs = Date.now() - thawedAt;

    expect(now.failed).toBe(0);
    expect(now.pending).toBe(0);
    expect(now.imported).toBe(total);
    const { emails, ids, listed } = await listUsers(runtime, appId);
    expect(listed).toBe(total);
    expect([...emails].filter(([, n]) => n !== 1)).toEqual([]);
    expect([...stagedIds].filter((id) => !ids.has(id))).toEqual([]);
    const missing = users.map((u) => u.loginMethods[0]?.email).filter((email) => !emails.has(email as string));
    expect(missing).toEqual([]);
    // No hash reached the runtime's output while calls timed out and came back.
    expect((runtime.stdout + runtime.stderr).includes(PASSWORD_HASH)).toBe(false);

    const timedOut = (runtime.stdout + runtime.stderr).match(/Task timed out/g)?.length ?? 0;
    console.log(
      `database-outage import ${JSON.stringify({
        users: USERS,
        freezeMs: thawedAt - frozenAt,
        importedBeforeFreeze: before.imported,
        drainedAfterThawMs,
        functionTimeoutsReported: timedOut,
      })}`,
    );
  });
});
