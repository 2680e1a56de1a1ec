import { resolve } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterEach, expect, it } from 'vitest';
import { startWorkerPool, type WorkerPool } from '../../bin/local/worker-pool.js';

/**
 * A pool whose contexts load several handler modules (how the local runtime runs its password
 * hashing routes, bin/local/hashing-routes.ts): each invocation reaches the module it names.
 */

const INFO = resolve(import.meta.dirname, 'fixtures', 'pool-handler.ts');
const ECHO = resolve(import.meta.dirname, 'fixtures', 'pool-handler-echo.ts');
const pools: WorkerPool[] = [];

function context(): Context {
  const noop = () => undefined;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'routes',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:routes',
    memoryLimitInMB: '1024',
    awsRequestId: 'r1',
    logGroupName: '/aws/lambda/routes',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 60_000,
    done: noop,
    fail: noop,
    succeed: noop,
  };
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
});

it('runs each invocation with the handler module it names, in the same contexts', async () => {
  const reports: string[] = [];
  const pool = await startWorkerPool({
    name: 'routes',
    handlerPath: [INFO, ECHO],
    size: 2,
    env: process.env,
    report: (m) => reports.push(m),
  });
  pools.push(pool);
  const info = (await pool.invoke({ action: 'info' }, context(), INFO)) as { threadId: number; functionName: string };
  const echo = (await pool.invoke({ echo: 'hi' }, context(), ECHO)) as { echoed: string; threadId: number };
  const first = (await pool.invoke({ action: 'info' }, context())) as { functionName: string };
  expect(info.functionName).toBe('routes');
  expect(echo.echoed).toBe('hi');
  expect(first.functionName).toBe('routes');
  expect([info.threadId, echo.threadId].every((id) => id > 0)).toBe(true);
  await expect(pool.invoke({}, context(), resolve(import.meta.dirname, 'elsewhere.ts'))).rejects.toThrow(
    /is not one of the pool's handlers/,
  );
  expect(reports).toEqual([]);
});
