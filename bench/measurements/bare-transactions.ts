/**
 * Baseline for measurement 2: the bare DynamoDB work of importing `n` users, with no application
 * logic, no HTTP, no queue. It replays the recorded write plan (cost-model.ts) with fresh keys:
 * - staging: the same row items in transactions of 99 rows + 1 counter update, 8 in flight
 *   (the staging store's ROWS_PER_TRANSACTION and PARALLELISM);
 * - import: per user, the worker's transactions in order (claim, then import), at the local
 *   pollers' concurrency (pollers × batch size users in flight).
 * Reads (the worker's GetItem/BatchGet) are NOT replayed: the baseline is transactions only.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { transactItems, type WritePlan } from './cost-model.js';

const STAGING_ROWS_PER_TRANSACTION = 99;
const STAGING_PARALLELISM = 8;

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

async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

/** Replaces every occurrence of the recorded ids by fresh ones of the same length. */
function rewrite<T>(value: T, replacements: readonly [string, string][]): T {
  let text = JSON.stringify(value);
  for (const [from, to] of replacements) text = text.split(from).join(to);
  return JSON.parse(text) as T;
}

function sameLengthAppId(appId: string): string {
  const fresh = `bare${randomUUID().replace(/-/g, '')}`;
  return fresh.slice(0, appId.length).padEnd(appId.length, 'x');
}

export async function runBareImport(
  client: DynamoDBDocumentClient,
  plan: WritePlan,
  n: number,
  concurrency: number,
): Promise<{ ms: number; usersPerSecond: number; transactions: number }> {
  const template = plan.perUser[0];
  if (!template) throw new Error('empty write plan');
  const appId = sameLengthAppId(template.appId);
  // Row Puts and the counter update of the recorded staging transactions, keyed by user id.
  const stagingItems = plan.staging.flatMap(transactItems) as Record<string, Record<string, unknown>>[];
  const counterUpdate = stagingItems.find((i) => i.Update);
  const rowPuts = new Map(plan.perUser.map((u) => [u.id, stagingItems.find((i) => JSON.stringify(i).includes(u.id))]));
  const users = Array.from({ length: n }, (_, i) => {
    const t = plan.perUser[i % plan.perUser.length] as WritePlan['perUser'][number];
    const replacements: [string, string][] = [
      [t.appId, appId],
      [t.id, randomUUID()],
      [t.email, `bare-${i}-${randomUUID()}@example.com`],
    ];
    return {
      row: rewrite(rowPuts.get(t.id), replacements),
      transactions: t.transactions.map((tx) => rewrite(transactItems(tx), replacements)),
    };
  });
  const stagingBatches: unknown[][] = [];
  for (let i = 0; i < users.length; i += STAGING_ROWS_PER_TRANSACTION) {
    const part = users.slice(i, i + STAGING_ROWS_PER_TRANSACTION).map((u) => u.row);
    // Each batch gets its own counter item (the store avoids counter conflicts by shard grouping).
    stagingBatches.push(
      counterUpdate ? [...part, rewrite(counterUpdate, [[template.appId, sameLengthAppId(template.appId)]])] : part,
    );
  }
  let transactions = 0;
  const send = async (items: unknown[]) => {
    transactions++;
    await client.send(new TransactWriteCommand({ TransactItems: items as never, ClientRequestToken: randomUUID() }));
  };
  const start = performance.now();
  await pool(stagingBatches, STAGING_PARALLELISM, send);
  await pool(users, concurrency, async (u) => {
    for (const tx of u.transactions) await send(tx);
  });
  const ms = performance.now() - start;
  return { ms, usersPerSecond: (n * 1000) / ms, transactions };
}
