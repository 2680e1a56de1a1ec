/**
 * Measurement 5 (cost model), and the write plan the bare-transaction baseline replays.
 *
 * In-process (see lib/in-process.ts): stage `users` into a fresh app with the real staging use
 * case (no queue message), then run the real import worker handler on SQS events of `batchSize`
 * records, one invocation at a time (as one Lambda instance would), recording every DynamoDB call
 * with ReturnConsumedCapacity 'TOTAL'. Per imported user: read/write capacity units, calls,
 * transactions and their action counts, and handler milliseconds (≈ Lambda billed duration).
 */
import type { InProcess, RecordedCall } from '../lib/in-process.js';
import { createApp, type Runtime } from '../lib/runtime.js';
import { cheapBcryptHash, importUsers, shortId } from '../lib/users.js';

export interface WritePlan {
  /** Recorded staging TransactWriteItems inputs (rows + counter update). */
  readonly staging: Record<string, unknown>[];
  /** Per user, in order: the worker's TransactWriteItems inputs (claim, import). */
  readonly perUser: {
    readonly id: string;
    readonly appId: string;
    readonly email: string;
    readonly transactions: Record<string, unknown>[];
  }[];
}

export interface CostSample {
  readonly users: number;
  readonly staging: { readUnitsPerUser: number; writeUnitsPerUser: number; transactionsPerUser: number };
  readonly worker: {
    readUnitsPerUser: number;
    writeUnitsPerUser: number;
    callsPerUser: Record<string, number>;
    /** Calls per user for which DynamoDB Local reported no capacity (their units are NOT counted). */
    callsWithoutCapacityPerUser: number;
    transactionsPerUser: number;
    actionsPerTransaction: number[];
    handlerMsPerUser: number;
    handlerMsPerInvocation: number;
    batchSize: number;
  };
}

const isTransaction = (c: RecordedCall) => /^TransactWrite/.test(c.command);

export function transactItems(input: Record<string, unknown>): unknown[] {
  return (input.TransactItems as unknown[] | undefined) ?? [];
}

export async function recordImport(
  runtime: Runtime,
  inProcess: InProcess,
  users: number,
  batchSize: number,
): Promise<{ sample: CostSample; plan: WritePlan }> {
  const appId = `cost-${shortId()}`;
  await createApp(runtime, appId);
  const hash = await cheapBcryptHash('bench-password');
  const prefix = `cost-${shortId()}`;
  const payload = importUsers(prefix, users, {
    kind: 'hash',
    passwordHash: hash,
    hashingAlgorithm: 'BCRYPT',
  });
  inProcess.calls.length = 0;
  inProcess.phase = 'staging';
  const messages = await inProcess.stage(appId, payload);
  inProcess.phase = 'worker';
  let handlerMs = 0;
  let invocations = 0;
  for (let i = 0; i < messages.length; i += batchSize) {
    handlerMs += await inProcess.importBatch(messages.slice(i, i + batchSize));
    invocations++;
  }
  const staging = inProcess.calls.filter((c) => c.phase === 'staging');
  const worker = inProcess.calls.filter((c) => c.phase === 'worker');
  const sum = (calls: RecordedCall[], f: (c: RecordedCall) => number) => calls.reduce((s, c) => s + f(c), 0);
  const callsPerUser: Record<string, number> = {};
  for (const c of worker) callsPerUser[c.command] = (callsPerUser[c.command] ?? 0) + 1 / messages.length;
  const workerTx = worker.filter(isTransaction);
  const sample: CostSample = {
    users: messages.length,
    staging: {
      readUnitsPerUser: sum(staging, (c) => c.readUnits) / messages.length,
      writeUnitsPerUser: sum(staging, (c) => c.writeUnits) / messages.length,
      transactionsPerUser: staging.filter(isTransaction).length / messages.length,
    },
    worker: {
      readUnitsPerUser: sum(worker, (c) => c.readUnits) / messages.length,
      writeUnitsPerUser: sum(worker, (c) => c.writeUnits) / messages.length,
      callsPerUser,
      callsWithoutCapacityPerUser: worker.filter((c) => c.capacityMissing).length / messages.length,
      transactionsPerUser: workerTx.length / messages.length,
      actionsPerTransaction: [...new Set(workerTx.map((c) => transactItems(c.input).length))].sort((a, b) => a - b),
      handlerMsPerUser: handlerMs / messages.length,
      handlerMsPerInvocation: handlerMs / invocations,
      batchSize,
    },
  };
  const plan: WritePlan = {
    staging: staging.filter(isTransaction).map((c) => c.input),
    perUser: messages.map((m, i) => ({
      id: m.id,
      appId,
      // Messages are sent in request order.
      email: `${prefix}-${i}@example.com`,
      transactions: workerTx.filter((c) => JSON.stringify(c.input).includes(m.id)).map((c) => c.input),
    })),
  };
  return { sample, plan };
}

// ------------------------------------------------------------------------------------------------
// Extrapolation to 1,000,000 users on AWS

/**
 * Prices (USD, us-east-1, as published on the AWS pricing pages; check before quoting):
 * - DynamoDB on-demand: $0.625 per million write request units, $0.125 per million read request
 *   units (aws.amazon.com/dynamodb/pricing/on-demand, after the Nov 2024 reduction). A
 *   transactional write costs 2 WRU per KB; DynamoDB Local's ConsumedCapacity is used as reported
 *   (see `transactionalFactor`).
 * - Lambda arm64: $0.0000133334 per GB-second, $0.20 per million requests (aws.amazon.com/lambda/pricing).
 * - SQS standard: $0.40 per million requests, 64 KB chunks (aws.amazon.com/sqs/pricing).
 * - API Gateway HTTP API: $1.00 per million requests (aws.amazon.com/api-gateway/pricing).
 */
export const PRICES = {
  dynamodbWriteUnitPerMillion: 0.625,
  dynamodbReadUnitPerMillion: 0.125,
  lambdaGbSecond: 0.0000133334,
  lambdaRequestPerMillion: 0.2,
  sqsRequestPerMillion: 0.4,
  httpApiRequestPerMillion: 1.0,
} as const;

export interface CostModel {
  readonly users: number;
  readonly concurrency: number;
  readonly workerMemoryGb: number;
  readonly lines: { item: string; arithmetic: string; usd: number }[];
  readonly totalUsd: number;
  readonly wallMinutes: number;
  readonly wallArithmetic: string;
}

export function costModel(
  sample: CostSample,
  options: { users: number; concurrency: number; workerMemoryMb: number; transactionalFactor: number },
): CostModel {
  const n = options.users;
  const gb = options.workerMemoryMb / 1024;
  const w = sample.worker;
  const wru = (sample.staging.writeUnitsPerUser + w.writeUnitsPerUser) * options.transactionalFactor;
  const rru = sample.staging.readUnitsPerUser + w.readUnitsPerUser;
  const invocations = n / w.batchSize;
  const gbSeconds = (n * w.handlerMsPerUser * gb) / 1000;
  // Per 10 users: one SendMessageBatch, one ReceiveMessage, one DeleteMessageBatch (+ empty polls, ignored).
  const sqsRequests = (n / 10) * 3;
  const stagingRequests = n / 10_000;
  const lines = [
    {
      item: 'DynamoDB writes',
      arithmetic: `${n} users × ${wru.toFixed(2)} WRU × $${PRICES.dynamodbWriteUnitPerMillion}/M`,
      usd: n * wru * (PRICES.dynamodbWriteUnitPerMillion / 1e6),
    },
    {
      item: 'DynamoDB reads',
      arithmetic: `${n} users × ${rru.toFixed(2)} RRU × $${PRICES.dynamodbReadUnitPerMillion}/M`,
      usd: n * rru * (PRICES.dynamodbReadUnitPerMillion / 1e6),
    },
    {
      item: 'Lambda compute (import worker)',
      arithmetic: `${n} users × ${w.handlerMsPerUser.toFixed(1)} ms × ${gb.toFixed(3)} GB × $${PRICES.lambdaGbSecond}/GB-s`,
      usd: gbSeconds * PRICES.lambdaGbSecond,
    },
    {
      item: 'Lambda requests',
      arithmetic: `${invocations} invocations × $${PRICES.lambdaRequestPerMillion}/M`,
      usd: invocations * (PRICES.lambdaRequestPerMillion / 1e6),
    },
    {
      item: 'SQS requests',
      arithmetic: `${sqsRequests} (send + receive + delete per 10 users) × $${PRICES.sqsRequestPerMillion}/M`,
      usd: sqsRequests * (PRICES.sqsRequestPerMillion / 1e6),
    },
    {
      item: 'API requests (staging)',
      arithmetic: `${stagingRequests} × $${PRICES.httpApiRequestPerMillion}/M`,
      usd: stagingRequests * (PRICES.httpApiRequestPerMillion / 1e6),
    },
  ];
  // Each invocation handles its batch concurrently; `concurrency` invocations run at once.
  const usersPerSecond = (options.concurrency * w.batchSize * 1000) / w.handlerMsPerInvocation;
  const wallMinutes = n / usersPerSecond / 60;
  return {
    users: n,
    concurrency: options.concurrency,
    workerMemoryGb: gb,
    lines,
    totalUsd: lines.reduce((s, l) => s + l.usd, 0),
    wallMinutes,
    wallArithmetic:
      `${options.concurrency} concurrent invocations × ${w.batchSize} users / ${w.handlerMsPerInvocation.toFixed(0)} ms ` +
      `= ${usersPerSecond.toFixed(0)} users/s → ${n} users in ${wallMinutes.toFixed(1)} min`,
  };
}
