/**
 * A staging request never outlives its budget (docs/bulk-import.md "A request cut short"): one
 * 10,000-user `POST /bulk-import/users` with an Idempotency-Key, sent to the local runtime while its
 * DynamoDB Local is frozen (SIGSTOP) for a few seconds part-way, answers 503 with `Retry-After` —
 * never 500 — before its function's timeout, keeping the groups it wrote; sent again with the same
 * key (as often as it takes, waiting what `Retry-After` says) it completes; and after the import
 * every user exists exactly once, with the id the answer gave, and none is FAILED.
 *
 * LOCAL_FUNCTION_TIMEOUT_SECONDS=15 lowers the staging route's timeout from 29 s to 15 s, so the
 * test waits for one short budget, not the real one.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUT_OF_TIME_MESSAGE } from '#functions/http/responses.js';
import { LOCAL_FUNCTION_TIMEOUT_ENV } from '../../bin/local/timeouts.js';
import { LocalProcess, removeDir } from '../helpers/local-process.js';
import { getJson, listUsers } from './throttling-helpers.js';

const TIMEOUT_SECONDS = 15;
const USERS = 10_000;
/** When DynamoDB Local is frozen after the request went out, and for how long. */
const FREEZE_AFTER_MS = 2_500;
const FREEZE_MS = 8_000;
const DRAIN_TIMEOUT_MS = 12 * 60_000;
/** A cheap (cost 4) bcrypt hash: importing a given hash does no hashing. */
const HASH = '$2a$04$WaW8Gq1XUjGC2dXCmH0QAu6oM2Cp26t4hF5QJaPyyVXaXNdPeW3QW';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let runtime: LocalProcess | undefined;
let dynamodbPid = 0;
const appId = `budget-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  runtime = await LocalProcess.start({
    args: ['--in-memory'],
    env: { API_KEYS: undefined, [LOCAL_FUNCTION_TIMEOUT_ENV]: String(TIMEOUT_SECONDS) },
  });
  dynamodbPid = (await runtime.waitUntilReady()).dynamodbPid;
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

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly text: string;
  readonly ms: number;
}

describe('a 10,000-user staging request against a core slowed down part-way', () => {
  it('answers 503 with Retry-After, never 500; the same key then completes; every user imported once', {
    timeout: 20 * 60_000,
  }, async () => {
    const core = runtime as LocalProcess;
    const users = Array.from({ length: USERS }, (_, i) => ({
      externalUserId: `budget-${i}`,
      loginMethods: [
        { recipeId: 'emailpassword', email: `budget-${i}@example.com`, passwordHash: HASH, hashingAlgorithm: 'BCRYPT' },
      ],
    }));
    const body = gzipSync(JSON.stringify({ users }));
    const send = async (): Promise<Answer> => {
      const started = Date.now();
      const response = await core.fetch(`/appid-${appId}/bulk-import/users`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'idempotency-key': 'staging-budget-chunk-0',
        },
        body,
      });
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        text: await response.text(),
        ms: Date.now() - started,
      };
    };

    // The first attempt: DynamoDB Local freezes while its groups are being written.
    const first = send();
    await sleep(FREEZE_AFTER_MS);
    process.kill(dynamodbPid, 'SIGSTOP');
    await sleep(FREEZE_MS);
    process.kill(dynamodbPid, 'SIGCONT');
    const answers: Answer[] = [await first];

    // The same request again, as a client does, until it is answered: after a 503, or a 409 while
    // an attempt the pipeline answered for still holds the key's lease (both with Retry-After).
    while ([409, 503].includes((answers.at(-1) as Answer).status) && answers.length < 40) {
      await sleep(Number((answers.at(-1) as Answer).retryAfter) * 1000);
      answers.push(await send());
    }
    const last = answers.at(-1) as Answer;
    console.log(
      `staging-budget answers ${JSON.stringify(answers.map((a) => ({ status: a.status, retryAfter: a.retryAfter, ms: a.ms, text: a.status === 200 ? undefined : a.text.trim() })))}`,
    );

    const firstAnswer = answers[0] as Answer;
    expect(firstAnswer.status, firstAnswer.text).toBe(503);
    expect(Number(firstAnswer.retryAfter)).toBeGreaterThan(0);
    // The route's own answer says what it staged; when it could not answer in time (its last
    // write still cut off, the lease being given back on a starved machine) the pipeline answers
    // for it. Either way the retry with the same key is what finishes the job.
    const firstText = firstAnswer.text.trim();
    expect(
      firstText === OUT_OF_TIME_MESSAGE ||
        /send the request again with the same Idempotency-Key after \d+ s/.test(firstText),
      firstText,
    ).toBe(true);
    for (const answer of answers) {
      expect([200, 409, 503], answer.text).toContain(answer.status);
      if (answer.status !== 200) expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
    }
    expect(last.status, last.text).toBe(200);
    // Every answer came from the core itself, before the function's timeout cut it off (the local
    // runtime answers a timed-out function 500 and logs it): the 503s are the route's and the pipeline's.
    expect(`${core.stdout}${core.stderr}`).not.toMatch(/Task timed out/);
    const staged = (JSON.parse(last.text) as { users: { userId: string; externalUserId?: string }[] }).users;
    expect(staged).toHaveLength(USERS);

    // The import: every user once, with the id the answer gave, none FAILED.
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    for (;;) {
      const [fresh, processing] = await Promise.all([
        getJson(core, `/appid-${appId}/bulk-import/users/count?status=NEW`),
        getJson(core, `/appid-${appId}/bulk-import/users/count?status=PROCESSING`),
      ]);
      if (fresh.count + processing.count === 0) break;
      if (Date.now() > deadline) throw new Error(`still ${fresh.count + processing.count} pending\n${core.describe()}`);
      await sleep(2_000);
    }
    expect((await getJson(core, `/appid-${appId}/bulk-import/users/count?status=FAILED`)).count).toBe(0);
    expect((await getJson(core, `/appid-${appId}/users/count`)).count).toBe(USERS);
    const { ids, emails, listed } = await listUsers(core, appId);
    expect(listed).toBe(USERS);
    expect([...emails.values()].every((n) => n === 1)).toBe(true);
    expect(emails.size).toBe(USERS);
    expect(staged.filter((u) => !ids.has(u.userId))).toEqual([]);
  });
});
