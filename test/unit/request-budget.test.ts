/**
 * An invocation's time budget (functions/shared/call-budget.ts, functions/wiring/budget.ts): the
 * request's deadline and the end of its working time, the checks work that grows with its input
 * makes, and the wall past which no storage call of the invocation starts (what keeps a timed-out
 * function in the local runtime's own thread from changing anything a retry sees).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorToHttp, OUT_OF_TIME_MESSAGE } from '#functions/http/responses.js';
import { checkTimeLeft, cleanupCall, pastStop, withRetryPolicy } from '#functions/shared/call-budget.js';
import { BackpressureError, BudgetExhaustedError } from '#functions/shared/errors.js';
import { createSqsPublisher } from '#functions/shared/publisher.js';
import { getItem, type Table } from '#functions/storage/kit/index.js';
import { requestBudget, withinBudget } from '#functions/wiring/budget.js';

describe("an HTTP request's budget", () => {
  it('retries stop 2 s before the function ends and calls 1.5 s before it; 10 s without a context', () => {
    const now = 5_000_000;
    expect(requestBudget(29_000, now)).toEqual({ deadline: now + 27_000, stopAt: now + 27_500 });
    expect(requestBudget(undefined, now)).toEqual({ deadline: now + 8_000, stopAt: now + 8_500 });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 900_000 }), (remaining) => {
        const { deadline, stopAt } = requestBudget(remaining, now);
        expect(stopAt - deadline).toBe(500);
        expect(now + remaining - stopAt).toBe(1_500);
      }),
    );
  });
});

describe('work that grows with its input', () => {
  it('goes on before the deadline and stops with BudgetExhaustedError (backpressure) from it on', async () => {
    const now = Date.now();
    await withinBudget({ deadline: now + 60_000 }, async () => {
      expect(() => checkTimeLeft('the next page')).not.toThrow();
    });
    const error = await withinBudget({ deadline: now - 1 }, async () => checkTimeLeft('the next page')).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BudgetExhaustedError);
    expect(error).toBeInstanceOf(BackpressureError);
    expect((error as Error).message).toBe('out of time before the next page');
    // Outside any budget nothing is ever out of time.
    expect(() => checkTimeLeft('anything', Number.MAX_SAFE_INTEGER)).not.toThrow();
  });

  it('property: throws exactly from the deadline on', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -10_000, max: 10_000 }), async (offset) => {
        const deadline = 1_000_000;
        const threw = await withRetryPolicy({ deadline }, async () => {
          try {
            checkTimeLeft('x', deadline + offset);
            return false;
          } catch {
            return true;
          }
        });
        expect(threw).toBe(offset >= 0);
      }),
    );
  });

  it('is answered 503 with Retry-After and a message of its own, never 500', () => {
    const answer = errorToHttp(new BudgetExhaustedError('out of time before the next page'), {});
    expect(answer).toMatchObject({
      statusCode: 503,
      headers: { 'retry-after': '5' },
      body: `${OUT_OF_TIME_MESSAGE}\n`,
    });
  });
});

describe('the end of the working time', () => {
  /** A table whose client counts the calls that reach it. */
  function countingTable() {
    let sent = 0;
    const table = {
      name: 'budget-test',
      client: () => ({
        send: async () => {
          sent++;
          return { Item: { PK: 'a', SK: 'b' } };
        },
      }),
    } as unknown as Table;
    return { table, sent: () => sent };
  }

  it('before it, storage calls go out; from it on, none starts (BudgetExhaustedError, not retried)', async () => {
    const { table, sent } = countingTable();
    const key = { PK: 'a', SK: 'b' };
    expect(await withRetryPolicy({ stopAt: Date.now() + 60_000 }, () => getItem(table, key))).toBeDefined();
    expect(sent()).toBe(1);
    const error = await withRetryPolicy({ stopAt: Date.now() - 1 }, () => getItem(table, key)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExhaustedError);
    expect(sent()).toBe(1);
  });

  it('an outer budget wins when it ends earlier, and is only past from its instant on', async () => {
    const stopAt = Date.now() + 60_000;
    const inner = await withRetryPolicy({ stopAt }, () =>
      withRetryPolicy({ stopAt: stopAt + 10_000 }, async () => [pastStop(stopAt - 1), pastStop(stopAt)]),
    );
    expect(inner).toEqual([false, true]);
    expect(pastStop(Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});

describe('a cleanup call after the working time', () => {
  it('gets one attempt, however long ago the working time ended', async () => {
    let sent = 0;
    const table = {
      name: 'budget-test',
      client: () => ({
        send: async () => {
          sent++;
          throw Object.assign(new Error('busy'), { name: 'ThrottlingException' });
        },
      }),
    } as unknown as Table;
    const key = { PK: 'a', SK: 'b' };
    const error = await withRetryPolicy({ deadline: Date.now() - 5_000, stopAt: Date.now() - 1_000 }, () =>
      cleanupCall(() => getItem(table, key)),
    ).catch((e: unknown) => e);
    expect(sent).toBe(1);
    expect(error).toBeInstanceOf(BackpressureError);
  });
});

describe('publishing import messages within a budget', () => {
  it('makes no retry that would end past the deadline: the time running out is said as such', async () => {
    let calls = 0;
    const publisher = createSqsPublisher<{ id: string }>({
      schema: { parse: (v) => v as { id: string } },
      queueUrl: () => 'http://queue',
      client: () =>
        ({
          send: async () => {
            calls++;
            throw Object.assign(new Error('busy'), { name: 'RequestThrottled' });
          },
        }) as never,
    });
    const error = await withinBudget({ deadline: Date.now() + 150 }, () => publisher.publish([{ id: 'u1' }])).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BudgetExhaustedError);
    // The first retry waits 50–150 ms, the second 100–300 ms: within 150 ms, at most one retry
    // starts (fewer on a slow machine), where the unbudgeted call below makes five.
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(2);
    // Without a budget the same failures are retried (six attempts) and then reported.
    calls = 0;
    const unbudgeted = await publisher.publish([{ id: 'u1' }]).catch((e: unknown) => e);
    expect((unbudgeted as Error).message).toBe('1 message(s) could not be sent to the queue');
    expect(calls).toBe(6);
  }, 30_000);
});
