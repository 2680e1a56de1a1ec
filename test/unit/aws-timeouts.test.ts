/**
 * No AWS call hangs (functions/shared/aws-timeouts.ts): each attempt's timeout comes from the
 * invocation's budget, and a server that accepts the connection but never answers fails the call
 * with the SDK's TimeoutError — which the DynamoDB kit treats as transient (`unavailable`).
 */
import { createServer, type Server, type Socket } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AWS_RESERVE_ATTEMPT_MS,
  AWS_UNBUDGETED_ATTEMPT_MS,
  attemptTimeoutMs,
  awsClientTimeouts,
  BudgetedHttpHandler,
} from '#functions/shared/aws-timeouts.js';
import { currentRetryPolicy, withRetryPolicy } from '#functions/shared/call-budget.js';
import { BudgetExhaustedError } from '#functions/shared/errors.js';
import { classifyError } from '#functions/storage/kit/errors.js';
import { withinBudget } from '#functions/wiring/budget.js';

describe('the timeout of one attempt', () => {
  const now = 1_000_000;

  it('is the unbudgeted limit without a budget', () => {
    expect(attemptTimeoutMs(now, {}, 1)).toBe(AWS_UNBUDGETED_ATTEMPT_MS);
    expect(attemptTimeoutMs(now, {}, 3)).toBe(AWS_UNBUDGETED_ATTEMPT_MS);
    expect(AWS_UNBUDGETED_ATTEMPT_MS).toBe(30_000);
  });

  it("follows the invocation's deadline, not a store's narrower retry deadline (staging keeps time to undo)", async () => {
    expect(attemptTimeoutMs(now, { deadline: now + 100, callDeadline: now + 7_000 }, 1)).toBe(7_000);
    expect(attemptTimeoutMs(now, { deadline: now - 100, callDeadline: now + 7_000 }, 2)).toBe(7_000);
    const start = Date.now();
    const inner = await withinBudget({ deadline: start + 8_000 }, () =>
      withRetryPolicy({ deadline: start + 1_000 }, async () => currentRetryPolicy()),
    );
    expect(inner).toEqual({ deadline: start + 1_000, callDeadline: start + 8_000 });
  });

  it.each([
    [60_000, 1, 60_000],
    [3_000, 1, 3_000],
    [3_000, 2, 3_000],
    [200, 1, AWS_RESERVE_ATTEMPT_MS],
    [200, 2, AWS_RESERVE_ATTEMPT_MS],
    [0, 1, AWS_RESERVE_ATTEMPT_MS],
    [-5_000, 1, AWS_RESERVE_ATTEMPT_MS],
    [0, 2, 0],
    [-5_000, 3, 0],
  ])('with %i ms left before the deadline, SDK attempt %i: %i ms', (left, attempt, expected) => {
    expect(attemptTimeoutMs(now, { callDeadline: now + left }, attempt)).toBe(expected);
  });

  it('property: never cut before the deadline, never past it by more than the reserve; after it, SDK retries refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: -600_000, max: 900_000 }), fc.integer({ min: 1, max: 10 }), (left, attempt) => {
        const ms = attemptTimeoutMs(now, { callDeadline: now + left }, attempt);
        if (left <= 0 && attempt > 1) expect(ms).toBe(0);
        else {
          expect(ms).toBeGreaterThanOrEqual(left);
          expect(ms).toBe(Math.max(left, AWS_RESERVE_ATTEMPT_MS));
        }
      }),
    );
  });
});

describe('the end of the working time (stopAt)', () => {
  const now = 2_000_000;

  it('property: no attempt outlives it, and from it on none is made', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -60_000, max: 60_000 }),
        fc.integer({ min: -60_000, max: 60_000 }),
        fc.integer({ min: 1, max: 5 }),
        (left, toStop, attempt) => {
          const policy = { callDeadline: now + left, stopAt: now + toStop };
          const ms = attemptTimeoutMs(now, policy, attempt);
          const without = attemptTimeoutMs(now, { callDeadline: now + left }, attempt);
          expect(ms).toBe(Math.max(0, Math.min(without, toStop)));
          expect(now + ms).toBeLessThanOrEqual(Math.max(now, now + toStop));
        },
      ),
    );
    expect(attemptTimeoutMs(now, { stopAt: now + 5_000 }, 1)).toBe(5_000);
    expect(attemptTimeoutMs(now, { stopAt: now - 1 }, 1)).toBe(0);
  });
});

describe('a DynamoDB server that accepts connections and never answers', () => {
  let server: Server;
  let endpoint = '';
  const sockets = new Set<Socket>();
  let requests = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('data', (chunk) => {
        if (chunk.toString('latin1').startsWith('POST ')) requests++;
      });
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((r) => server.close(r));
  });

  const client = () =>
    new DynamoDBClient({
      endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 3,
      ...awsClientTimeouts(),
    });
  const getItem = new GetItemCommand({ TableName: 't', Key: { PK: { S: 'a' }, SK: { S: 'b' } } });

  it('fails the call with TimeoutError, which the kit classifies as unavailable (transient), within the budget', async () => {
    const ddb = client();
    requests = 0;
    const error = await withinBudget({ deadline: Date.now() + 1_500 }, () => ddb.send(getItem)).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    ddb.destroy();
    expect(error?.name).toBe('TimeoutError');
    expect(classifyError(error)).toBe('unavailable');
    // The first attempt used the budget (at least the reserve); the SDK's retry after the deadline
    // was refused before it was sent.
    expect(requests).toBe(1);
  });

  it('past the end of the working time, no request reaches the server: BudgetExhaustedError', async () => {
    const ddb = client();
    requests = 0;
    const error = await withinBudget({ deadline: Date.now() - 2_000, stopAt: Date.now() - 1 }, () =>
      ddb.send(getItem),
    ).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    ddb.destroy();
    expect(error).toBeInstanceOf(BudgetExhaustedError);
    expect(requests).toBe(0);
  });

  it('an attempt under way is cut off at the end of the working time, even within the reserve', async () => {
    const ddb = client();
    requests = 0;
    const started = Date.now();
    const error = await withinBudget({ deadline: started + 5_000, stopAt: started + 700 }, () =>
      ddb.send(getItem),
    ).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    const took = Date.now() - started;
    ddb.destroy();
    expect(error?.name).toMatch(/TimeoutError|BudgetExhaustedError/);
    // Cut at the end of the working time, not at the deadline (5 s) as an attempt within the
    // budget would be.
    expect(took).toBeLessThan(5_000);
    expect(requests).toBe(1);
  });

  it('without a budget, each attempt still ends (at the unbudgeted limit, shortened here) and the call fails', async () => {
    const ddb = new DynamoDBClient({
      endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
      requestHandler: new BudgetedHttpHandler(1_500),
    });
    const error = await ddb.send(getItem).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    ddb.destroy();
    expect(error?.name).toBe('TimeoutError');
  });
});
