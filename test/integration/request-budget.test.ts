/**
 * No request outlives its budget (docs/request-pipeline.md "From event to answer"), against DynamoDB Local and
 * the local queue, through the real handlers called with a Lambda context of a few seconds:
 *
 * - a route still working at the end of its working time is answered 503 with `Retry-After`, never
 *   500, and nothing it does afterwards reaches the table (what the local runtime relies on for a
 *   function it cannot stop);
 * - a staging request too large for its time (a slow table here) stops at a group boundary and
 *   answers 503 with `Retry-After` and what it staged; the same request again — the same body
 *   without a key, or the same Idempotency-Key — stages only the rest: every user once;
 * - work that grows with its input stops between two of its steps once the deadline has passed:
 *   a user's many passwords to hash, a dry run's reads.
 */

import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { importUser } from '#functions/domain/import/import-user.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { OUT_OF_TIME_MESSAGE } from '#functions/http/responses.js';
import { ROUTES } from '#functions/routes.js';
import { getDocumentClient } from '#functions/shared/clients.js';
import { BudgetExhaustedError } from '#functions/shared/errors.js';
import { getItem, putItem } from '#functions/storage/kit/index.js';
import { withinBudget } from '#functions/wiring/budget.js';
import { storesOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { createRouter, loadHandler } from '../../bin/local/dispatch.js';
import { toGatewayEvent } from '../../bin/local/router.js';
import { localContext } from '../../bin/local/timeouts.js';
import {
  BCRYPT_HASH,
  call,
  createApp,
  epUser,
  listAll,
  normalisedUser,
  stagedCount,
  useBulkTestFile,
  userCount,
} from './bulk-support.js';

useBulkTestFile([BCRYPT_HASH]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const router = createRouter(ROUTES);

/** The staging route's real handler, called with a context of `remainingMs`. */
async function stageWithin(
  remainingMs: number,
  appId: string,
  users: unknown[],
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; retryAfter: string | undefined; json: any; ms: number }> {
  const url = `/appid-${appId}/bulk-import/users`;
  const match = router.match('POST', url);
  if (!match) throw new Error('no staging route');
  const handler = await loadHandler(match.route);
  const event = toGatewayEvent(
    {
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      body: Buffer.from(JSON.stringify({ users })),
    },
    match,
  );
  const started = Date.now();
  const result = (await handler(event, localContext(match.route.id, remainingMs))) as {
    statusCode: number;
    headers?: Record<string, string>;
    body: string;
  };
  const text = result.body.replace(/\n$/, '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status: result.statusCode,
    text,
    retryAfter: result.headers?.['retry-after'],
    json,
    ms: Date.now() - started,
  };
}

/** Delays every TransactWriteItems by `ms` (a slow table), until the test ends. */
let undelay: (() => void) | undefined;
function slowTransactions(ms: number): void {
  const client = getDocumentClient();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand') await sleep(ms);
      return next(args);
    },
    { step: 'initialize', name: 'test-slow-transactions', override: true },
  );
  undelay = () => void client.middlewareStack.remove('test-slow-transactions');
}
afterEach(() => {
  undelay?.();
  undelay = undefined;
});

describe('the end of a request’s working time', () => {
  it('a route still working then is answered 503 with Retry-After before its timeout, and its later write never lands', async () => {
    const key = { PK: `budget-test#${Date.now()}#${Math.random()}`, SK: 'zombie' };
    let lateWrite: string | undefined;
    let finished: () => void = () => undefined;
    const done = new Promise<void>((r) => {
      finished = r;
    });
    const slow = httpHandler({
      route: { id: 'budget-test', scope: 'app', exists: 'never' },
      run: async () => {
        // Past the function's timeout: Lambda would have stopped it; the local runtime cannot.
        await sleep(3_500);
        lateWrite = await putItem(baseTable, { ...key, entityType: 'TEST' }).then(
          () => 'written',
          (e: Error) => e.name,
        );
        finished();
        return ok({ status: 'OK' });
      },
    });
    const started = Date.now();
    const answer = await slow(
      {
        rawPath: '/hello',
        headers: {},
        requestContext: { http: { method: 'GET' } },
      } as unknown as APIGatewayProxyEventV2,
      localContext('budget-test', 3_000),
    );
    const ms = Date.now() - started;
    expect(answer).toMatchObject({
      statusCode: 503,
      headers: { 'retry-after': '5' },
      body: `${OUT_OF_TIME_MESSAGE}\n`,
    });
    // Answered at the end of the working time (1.5 s before the timeout) plus its grace.
    expect(ms).toBeGreaterThanOrEqual(1_500);
    expect(ms).toBeLessThan(3_000);
    await done;
    expect(lateWrite).toBe('BudgetExhaustedError');
    expect(await getItem(baseTable, key)).toBeUndefined();
  });
});

describe('a staging request too large for its time', () => {
  const USERS = 600;

  it.each([
    [
      'without a key: the same body',
      {},
      'send the same request again after 2 s (the same body stages only the users not staged yet)',
    ],
    [
      'with an Idempotency-Key: the same key',
      { 'idempotency-key': 'budget-chunk-0' },
      'send the request again with the same Idempotency-Key after 2 s (it stages only the users not staged yet)',
    ],
  ])(
    'stops at a group boundary with 503 and Retry-After; %s stages only the rest, every user once',
    async (_, headers, advice) => {
      const appId = await createApp({}, [], 'budget');
      const users = Array.from({ length: USERS }, (_, i) => epUser(i, {}, appId));
      // 600 users are about 32 groups, 8 at a time: four rounds of over 3 s do not fit in the 13 s
      // before the deadline.
      slowTransactions(3_000);
      const cut = await stageWithin(15_000, appId, users, headers);
      expect(cut.status, cut.text).toBe(503);
      expect(cut.retryAfter, cut.text).toBe('2');
      expect(cut.ms).toBeLessThan(15_000);
      const kept = await stagedCount(appId);
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(USERS);
      expect(cut.text).toBe(
        `The request ran out of time before every user was staged: ${kept} users of ${USERS} staged; ${advice}`,
      );
      const early = new Set((await listAll(appId)).map((row) => row.id as string));

      undelay?.();
      undelay = undefined;
      const rest = await stageWithin(29_000, appId, users, headers);
      expect(rest.status, rest.text).toBe(200);
      const ids = (rest.json.users as { userId: string }[]).map((u) => u.userId);
      expect(new Set(ids).size).toBe(USERS);
      for (const id of early) expect(ids).toContain(id);
      expect(await stagedCount(appId, 'NEW')).toBe(USERS);
      const rows = await listAll(appId);
      expect(rows).toHaveLength(USERS);
      expect(new Set(rows.map((r) => r.loginMethods[0].email)).size).toBe(USERS);
    },
  );
});

describe('work that grows with its input', () => {
  it("a user's many passwords: hashed one after the other only while the request has time; nothing written", async () => {
    const appId = await createApp({}, [], 'budget');
    const first = normalisedUser('many-1@example.com', { plainTextPassword: 'pw-many-1' });
    const user: ImportUser = {
      ...first,
      loginMethods: [1, 2, 3].map((n) => ({
        ...(first.loginMethods[0] as ImportUser['loginMethods'][number]),
        email: `many-${n}@example.com`,
        superTokensUserId: n === 1 ? first.id : randomUUID(),
        plainTextPassword: `pw-many-${n}`,
      })) as ImportUser['loginMethods'],
    };
    let hashed = 0;
    // Each hash takes 400 ms; the deadline comes during the first.
    const slowHash = async () => {
      hashed++;
      await sleep(400);
      return BCRYPT_HASH;
    };
    const config = {
      passwordHashingAlg: 'BCRYPT' as const,
      bcryptLogRounds: 4,
      argon2: { iterations: 1, memoryKb: 1024, parallelism: 1 },
      accountLinkingEnabled: false,
      mfaEnabled: false,
    };
    const error = await withinBudget({ deadline: Date.now() + 200 }, () =>
      importUser({ store: storesOf(baseTable).users, hashPassword: slowHash }, { appId, user, config }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExhaustedError);
    expect(hashed).toBe(1);
    expect(await userCount(appId)).toBe(0);
    // With time enough, the same user is imported.
    const done = await withinBudget({ deadline: Date.now() + 20_000 }, () =>
      importUser({ store: storesOf(baseTable).users, hashPassword: slowHash }, { appId, user, config }),
    );
    expect(done.kind).toBe('imported');
    expect(hashed).toBe(4);
  });

  it('a dry run too large for its time answers 503 with Retry-After, never 500', async () => {
    const appId = await createApp({}, [], 'budget');
    const users = Array.from({ length: 2_000 }, (_, i) => ({
      ...epUser(i, {}, appId),
      externalUserId: `dry-${i}`,
    }));
    const client = getDocumentClient();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'BatchGetItemCommand') await sleep(1_000);
        return next(args);
      },
      { step: 'initialize', name: 'test-slow-batch-gets', override: true },
    );
    undelay = () => void client.middlewareStack.remove('test-slow-batch-gets');
    const url = `/appid-${appId}/bulk-import/users?dryRun=true`;
    const match = router.match('POST', url.split('?')[0] as string);
    if (!match) throw new Error('no staging route');
    const handler = await loadHandler(match.route);
    const started = Date.now();
    const answer = (await handler(
      toGatewayEvent(
        {
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify({ users })),
        },
        match,
      ),
      localContext(match.route.id, 5_000),
    )) as { statusCode: number; headers?: Record<string, string>; body: string };
    expect(answer.statusCode, answer.body).toBe(503);
    expect(answer.headers?.['retry-after']).toBe('5');
    expect(answer.body).toBe(`${OUT_OF_TIME_MESSAGE}\n`);
    expect(Date.now() - started).toBeLessThan(5_000);
    // Nothing was written: a dry run never writes.
    expect(await stagedCount(appId)).toBe(0);
    undelay?.();
    undelay = undefined;
    const small = await call('POST', url, { body: { users: users.slice(0, 10) } });
    expect(small.status, small.text).toBe(200);
  });
});
