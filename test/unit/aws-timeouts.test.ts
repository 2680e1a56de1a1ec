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
  AWS_ATTEMPT_TIMEOUT_MS,
  AWS_RESERVE_ATTEMPT_MS,
  attemptTimeoutMs,
  awsClientTimeouts,
} from '#functions/shared/aws-timeouts.js';
import { withRetryPolicy } from '#functions/shared/call-budget.js';
import { classifyError } from '#functions/storage/kit/errors.js';

describe('the timeout of one attempt', () => {
  const now = 1_000_000;

  it('is the cap without a budget', () => {
    expect(attemptTimeoutMs(now, {}, 1)).toBe(AWS_ATTEMPT_TIMEOUT_MS);
    expect(attemptTimeoutMs(now, {}, 3)).toBe(AWS_ATTEMPT_TIMEOUT_MS);
  });

  it.each([
    [60_000, 1, AWS_ATTEMPT_TIMEOUT_MS],
    [3_000, 1, 3_000],
    [3_000, 2, 3_000],
    [200, 1, AWS_RESERVE_ATTEMPT_MS],
    [200, 2, AWS_RESERVE_ATTEMPT_MS],
    [0, 1, AWS_RESERVE_ATTEMPT_MS],
    [-5_000, 1, AWS_RESERVE_ATTEMPT_MS],
    [0, 2, 0],
    [-5_000, 3, 0],
  ])('with %i ms left before the deadline, SDK attempt %i: %i ms', (left, attempt, expected) => {
    expect(attemptTimeoutMs(now, { deadline: now + left }, attempt)).toBe(expected);
  });

  it('property: never above the cap; before the deadline never past it by more than the reserve; after it, SDK retries refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: -600_000, max: 900_000 }), fc.integer({ min: 1, max: 10 }), (left, attempt) => {
        const ms = attemptTimeoutMs(now, { deadline: now + left }, attempt);
        expect(ms).toBeLessThanOrEqual(AWS_ATTEMPT_TIMEOUT_MS);
        if (left <= 0 && attempt > 1) expect(ms).toBe(0);
        else expect(ms).toBe(Math.min(AWS_ATTEMPT_TIMEOUT_MS, Math.max(left, AWS_RESERVE_ATTEMPT_MS)));
      }),
    );
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
    const error = await withRetryPolicy({ deadline: Date.now() + 1_500 }, () => ddb.send(getItem)).then(
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

  it('without a budget, each attempt still ends (at the cap) and the call fails', { timeout: 60_000 }, async () => {
    const ddb = new DynamoDBClient({
      endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
      ...awsClientTimeouts(),
    });
    const error = await ddb.send(getItem).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    ddb.destroy();
    expect(error?.name).toBe('TimeoutError');
  });
});
