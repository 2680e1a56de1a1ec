/**
 * Baseline for measurement 2 (the import worker writes one SQS batch's users together): the
 * bare DynamoDB work of importing `n` users, with no application logic, no HTTP, no queue. It
 * replays the recorded write plan (cost-model.ts) with fresh keys:
 * - staging: the same row items in transactions of 99 rows + 1 counter update, 8 in flight
 *   (the staging store's ROWS_PER_TRANSACTION and PARALLELISM);
 * - import: per recorded SQS batch, the worker's transactions in order (e.g. one claim
 *   transaction and one import transaction for the whole batch), every user of the batch given
 *   fresh ids and emails, `batchesInFlight` batches at once (the local pollers' concurrency).
 * Template batches are reused cyclically until at least `n` users are replayed (whole batches).
 * Reads (the worker's GetItem/BatchGet/Query) are NOT replayed: the baseline is transactions only.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { forEachLimited } from '#functions/storage/kit/chunk.js';
import {
  PARALLELISM as STAGING_PARALLELISM,
  ROWS_PER_TRANSACTION as STAGING_ROWS_PER_TRANSACTION,
} from '#functions/storage/staging/rows.js';
import { transactItems, type WritePlan } from './cost-model.js';

/** A plain client on the runtime's DynamoDB Local, outside the handlers' (recorded) one. */
export function bareClient(endpoint: string): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 8,
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
}

/** Replaces every occurrence of the recorded strings by fresh ones. */
function rewrite<T>(value: T, replacements: readonly [string, string][]): T {
  let text = JSON.stringify(value);
  for (const [from, to] of replacements) text = text.split(from).join(to);
  return JSON.parse(text) as T;
}

function sameLengthAppId(appId: string): string {
  const fresh = `bare${randomUUID().replace(/-/g, '')}`;
  return fresh.slice(0, appId.length).padEnd(appId.length, 'x');
}

export async function runBareBatchImport(
  client: DynamoDBDocumentClient,
  plan: WritePlan,
  n: number,
  batchesInFlight: number,
): Promise<{ ms: number; usersPerSecond: number; users: number; transactions: number }> {
  if (plan.batches.length === 0) throw new Error('empty write plan');
  const appId = sameLengthAppId(plan.appId);
  const stagingItems = plan.staging.flatMap(transactItems) as Record<string, Record<string, unknown>>[];
  const counterUpdate = stagingItems.find((i) => i.Update);
  const rowPut = new Map(
    plan.batches.flatMap((b) => b.users).map((u) => [u.id, stagingItems.find((i) => JSON.stringify(i).includes(u.id))]),
  );
  const rows: unknown[] = [];
  const batches: unknown[][][] = [];
  let users = 0;
  for (let k = 0; users < n; k++) {
    const template = plan.batches[k % plan.batches.length] as WritePlan['batches'][number];
    const replacements: [string, string][] = [[plan.appId, appId]];
    for (const u of template.users) {
      replacements.push([u.id, randomUUID()], [u.email, `bare-${users}-${randomUUID()}@example.com`]);
      rows.push(rewrite(rowPut.get(u.id), replacements));
      users++;
    }
    batches.push(template.transactions.map((tx) => rewrite(transactItems(tx), replacements)));
  }
  const stagingBatches: unknown[][] = [];
  for (let i = 0; i < rows.length; i += STAGING_ROWS_PER_TRANSACTION) {
    const part = rows.slice(i, i + STAGING_ROWS_PER_TRANSACTION);
    // Each staging transaction gets its own counter item (the store avoids counter conflicts by shard grouping).
    stagingBatches.push(
      counterUpdate ? [...part, rewrite(counterUpdate, [[plan.appId, sameLengthAppId(plan.appId)]])] : part,
    );
  }
  let transactions = 0;
  const send = async (items: unknown[]) => {
    transactions++;
    await client.send(new TransactWriteCommand({ TransactItems: items as never, ClientRequestToken: randomUUID() }));
  };
  const start = performance.now();
  await forEachLimited(stagingBatches, STAGING_PARALLELISM, send);
  await forEachLimited(batches, batchesInFlight, async (txs) => {
    for (const tx of txs) await send(tx);
  });
  const ms = performance.now() - start;
  return { ms, usersPerSecond: (users * 1000) / ms, users, transactions };
}
